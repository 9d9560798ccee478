/**
 * Rows into fields: an export with one row per concept (payroll: salary, health, pension, overtime… each
 * its own row with a concept code and an amount) becomes fields of one document, through the mapping's
 * table from concept code to request fields. A code the table does not know is never dropped silently:
 * the document is invalid naming the code and its row, unless the mapping lists the code under `ignore`.
 */
import { excerpt, quoted } from '../policy/excerpt.js';
import type { Problem } from '../validate/problem.js';
import { evaluateValue } from './evaluate-value.js';
import type { EvalContext, RowView } from './eval-context.js';
import type { Concepts } from './mapping-types.js';
import { specColumns } from './compile-node.js';
import { evaluateCondition } from './row-condition.js';

type Segment = string | number;

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])*(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])*)*$/;

/** `Devengados.HEDs[0].Cantidad` -> `['Devengados', 'HEDs', 0, 'Cantidad']`; undefined when malformed. */
export function parseFieldPath(path: string): Segment[] | undefined {
  if (!PATH.test(path)) return undefined;
  const out: Segment[] = [];
  for (const part of path.split('.')) {
    const [name, ...indices] = part.split('[');
    out.push(name);
    for (const i of indices) out.push(Number(i.slice(0, -1)));
  }
  return out;
}

function isContainer(value: unknown): value is Record<string | number, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The value at a path of the request, undefined when absent. */
function getAt(root: Record<string, unknown>, path: Segment[]): unknown {
  let node: unknown = root;
  for (const s of path) {
    if (!isContainer(node)) return undefined;
    node = node[s];
  }
  return node;
}

/** Sets a value, creating objects and arrays on the way; false when a non-container blocks the path. */
function setAt(root: Record<string, unknown>, path: Segment[], value: unknown): boolean {
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i += 1) {
    const next = node[path[i]];
    if (next === undefined) {
      const created = typeof path[i + 1] === 'number' ? [] : {};
      node[path[i]] = created;
      node = created as Record<string | number, unknown>;
    } else if (isContainer(next)) {
      node = next;
    } else {
      return false;
    }
  }
  node[path[path.length - 1]] = value;
  return true;
}

/**
 * Holes left by indices given out of order (`HEDs[1]` without `HEDs[0]`) are closed: indices give the
 * order. True when a hole was closed (the items after it moved).
 */
function compactArrays(node: unknown): boolean {
  let moved = false;
  if (Array.isArray(node)) {
    for (let i = node.length - 1; i >= 0; i -= 1)
      if (node[i] === undefined) {
        node.splice(i, 1);
        moved = true;
      }
    for (const item of node) moved = compactArrays(item) || moved;
  } else if (isContainer(node)) {
    for (const v of Object.values(node)) moved = compactArrays(v) || moved;
  }
  return moved;
}

/** Where each field a concept row set came from (map/request-place.ts): request path -> row and columns. */
export type ConceptPlaces = Map<string, { row: number; columns: string[] }>;

/**
 * An amount in a column of `concepts.amounts` that the row's code does not read would be dropped: a
 * deduction written in the earned column, or a health row that also earns. Only a blank or zero cell
 * (as `zero` reads it) is let through; anything else makes the document invalid naming row and column.
 */
function droppedAmounts(
  concepts: Concepts,
  key: string,
  code: string,
  row: RowView,
  ctx: EvalContext,
  problem: (p: Omit<Problem, 'path'>) => void,
): void {
  const reads = concepts.reads.get(key);
  for (const column of concepts.amounts) {
    if (reads?.has(column.trim().toLowerCase()) === true) continue;
    const zero = evaluateCondition({ test: 'zero', column }, (c) => row.get(c), ctx.mapping.format);
    if (zero === true) continue;
    const cell = row.get(column).trim();
    problem({
      code: 'EDOC_MAP_INCONSISTENT',
      column,
      value: excerpt(cell),
      rows: [row.row],
      message: `Row ${row.row}: concept ${quoted(code)} has ${quoted(excerpt(cell))} in column "${column}", which the concept table does not read for that code; the amount would be dropped, so the document is not sent: correct the row, or map that column for the concept`,
    });
  }
}

/**
 * Applies every concept row of a document to its request. A field already set (by the document's own
 * fields or by an earlier concept row) is not overwritten: the document is invalid naming both rows.
 * Returns where each field it set came from.
 */
export function applyConcepts(
  concepts: Concepts,
  rows: RowView[],
  request: Record<string, unknown>,
  ctx: EvalContext,
): ConceptPlaces {
  const setBy = new Map<string, number>();
  const places: ConceptPlaces = new Map();
  const problem = (p: Omit<Problem, 'path'>): void => {
    ctx.problems.push({ path: '', ...p });
  };
  for (const row of rows) {
    const code = row.get(concepts.column).trim();
    if (code === '') continue;
    const key = code.toLowerCase();
    if (concepts.ignore.has(key)) continue;
    const fields = concepts.codes.get(key);
    if (fields === undefined) {
      problem({
        code: 'EDOC_MAP_UNKNOWN_CONCEPT',
        column: concepts.column,
        value: excerpt(code),
        rows: [row.row],
        message: `Row ${row.row}: concept ${quoted(code)} in column "${concepts.column}" is not in the mapping's concept table; the document is not sent without it: add the code under concepts.codes, or under concepts.ignore if it belongs in no field`,
      });
      continue;
    }
    droppedAmounts(concepts, key, code, row, ctx, problem);
    const rowCtx: EvalContext = { ...ctx, rows: [row.row] };
    for (const [path, spec] of fields) {
      const value = evaluateValue(spec, row, rowCtx, `${path} (concept ${code}, row ${row.row})`);
      if (value === undefined || value === null) continue;
      const segments = parseFieldPath(path) as Segment[];
      const earlier = setBy.get(path);
      if (earlier !== undefined || getAt(request, segments) !== undefined) {
        const by = earlier === undefined ? 'a document field of the mapping' : `row ${earlier}`;
        problem({
          code: 'EDOC_MAP_INCONSISTENT',
          column: concepts.column,
          value: excerpt(code),
          rows: earlier === undefined ? [row.row] : [earlier, row.row],
          message: `Row ${row.row}: concept ${quoted(code)} in column "${concepts.column}" sets ${path}, which ${by} already set; one document carries each concept once`,
        });
        continue;
      }
      if (!setAt(request, segments, value)) {
        problem({
          code: 'EDOC_MAP_INCONSISTENT',
          column: concepts.column,
          value: excerpt(code),
          rows: [row.row],
          message: `Row ${row.row}: concept ${quoted(code)} sets ${path}, but a part of that path holds a value`,
        });
        continue;
      }
      setBy.set(path, row.row);
      places.set(path, { row: row.row, columns: [...specColumns(spec, new Set())] });
    }
  }
  // a closed hole moved the items after it: a path with an index may name another item now
  if (compactArrays(request))
    for (const path of places.keys()) if (path.includes('[')) places.delete(path);
  return places;
}
