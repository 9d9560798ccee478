/**
 * Master data as a mapping reads it: `lookup(table, key, column)` in an expression (expr/) looks the
 * key's text up in a configured master-data table (the ERP's customers, suppliers, employees export,
 * loaded into the ledger by the daemon) and gives the cell of `column`. The engine gets the tables a
 * mapping names as plain data (they cross to the intake worker with the mapping): one version each,
 * with the file it came from, so a document whose id is missing is refused naming the id, the table
 * and where the table came from.
 */
import { excerpt } from '../policy/excerpt.js';
import type { ExprNode } from './expr/parse-expression.js';

/** One version of a table: its columns and, by id (trimmed, exact), the cells in column order. */
export interface MasterTable {
  table: string;
  version: number;
  file: string;
  columns: string[];
  rows: Record<string, string[]>;
  /**
   * Handing a read to the intake worker: the worker holds this version already (sent with an earlier
   * read), so `rows` is left empty here and the worker uses its own copy.
   */
  held?: true;
}

/** The tables a document may read, by name. A table named by the mapping but absent here has no file loaded yet. */
export type MasterTables = Readonly<Record<string, MasterTable>>;

/**
 * The versions of one table an intake worker holds after it received `version` whole: the two newest.
 * The reader (main thread) applies the same rule to what it sent, so both sides agree on what is held.
 */
export function heldAfter(held: readonly number[], version: number): number[] {
  return [...new Set([...held, version])].sort((a, b) => b - a).slice(0, 2);
}

/** Why a lookup gave no value: the catalogue code and its message. */
export class MasterLookupError extends Error {
  readonly code = 'EDOC_MAP_MASTER_MISSING';
}

/**
 * The cell of `column` in the row of `key`, '' when that cell is blank. Throws MasterLookupError when
 * the table has no file loaded yet or holds no row of that id.
 */
export function lookupMaster(
  tables: MasterTables | undefined,
  table: string,
  key: string,
  column: string,
): string {
  const t = tables !== undefined && Object.hasOwn(tables, table) ? tables[table] : undefined;
  if (t === undefined) {
    throw new MasterLookupError(
      `id ${JSON.stringify(excerpt(key, 60))} cannot be looked up: master table "${table}" has no file loaded yet`,
    );
  }
  const row = Object.hasOwn(t.rows, key) ? t.rows[key] : undefined;
  if (row === undefined) {
    throw new MasterLookupError(
      `id ${JSON.stringify(excerpt(key, 60))} is not in master table "${table}" (version ${t.version}, from ${t.file})`,
    );
  }
  const at = t.columns.indexOf(column);
  // the configuration checks every column a mapping reads against the table's columns at load
  if (at < 0)
    throw new MasterLookupError(
      `master table "${table}" (version ${t.version}, from ${t.file}) has no column "${column}"`,
    );
  return (row[at] ?? '').trim();
}

/** Adds each `lookup(table, key, column)` of an expression to `out` (table -> columns). */
export function expressionLookups(n: ExprNode, out: Map<string, Set<string>>): void {
  if (n.t === 'neg' || n.t === 'not') expressionLookups(n.e, out);
  else if (n.t === 'bin') {
    expressionLookups(n.l, out);
    expressionLookups(n.r, out);
  } else if (n.t === 'call') {
    if (n.fn === 'lookup' && n.args[0].t === 'str' && n.args[2].t === 'str') {
      let columns = out.get(n.args[0].v);
      if (columns === undefined) out.set(n.args[0].v, (columns = new Set()));
      columns.add(n.args[2].v);
    }
    for (const a of n.args) expressionLookups(a, out);
  }
}

function isExprNode(v: unknown): v is ExprNode {
  return typeof v === 'object' && v !== null && typeof (v as { t?: unknown }).t === 'string';
}

/**
 * Every master table and column a compiled mapping reads, wherever its expressions stand (document and
 * line fields, derivation inputs, concepts): a walk over the compiled tree.
 */
export function masterReferences(compiled: unknown): Record<string, string[]> {
  const out = new Map<string, Set<string>>();
  const seen = new Set<object>();
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if (v instanceof Map) {
      for (const x of v.values()) walk(x);
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    const expr = (v as { expr?: unknown }).expr;
    if (isExprNode(expr)) expressionLookups(expr, out);
    for (const x of Object.values(v)) walk(x);
  };
  walk(compiled);
  return Object.fromEntries(
    [...out].sort(([a], [b]) => a.localeCompare(b)).map(([t, c]) => [t, [...c].sort()]),
  );
}
