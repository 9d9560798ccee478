/**
 * What `edoc-bridge ledger copy` copies, read from both catalogs rather than written down here: every
 * table of the SQLite ledger with every column, matched by name with the PostgreSQL schema. A table or
 * column on one side only is an error naming it, so that a later migration step added to one schema
 * and not the other can never make the copy drop a column quietly. Only the tables PostgreSQL alone
 * has by design (PG_ONLY_TABLES) are left out.
 */
import type Database from 'better-sqlite3';
import { EdocError } from '../errors.js';
import type { SqlExecutor } from '../ledger/sql/executor.js';

/**
 * Tables of the PostgreSQL ledger that have no SQLite counterpart: its migrations record and the
 * cluster's tables (nodes, leases, file claims), which running nodes fill. A new PostgreSQL-only table
 * must be named here on purpose; until then the copy refuses the schema.
 */
export const PG_ONLY_TABLES: ReadonlySet<string> = new Set([
  'schema_version',
  'nodes',
  'company_leases',
  'file_claims',
]);

/**
 * How a column's values travel and are compared: `integer` as decimal text, `text` as its UTF-8 bytes.
 * Those are the only types the ledger's schemas use; any other is refused rather than copied on a guess.
 */
export type ColumnKind = 'integer' | 'text';

const PG_KINDS: Readonly<Record<string, ColumnKind>> = {
  bigint: 'integer',
  integer: 'integer',
  smallint: 'integer',
  text: 'text',
  'character varying': 'text',
  character: 'text',
};

export interface CopyColumn {
  name: string;
  kind: ColumnKind;
}

export interface CopyTable {
  name: string;
  /** In the SQLite table's order. */
  columns: CopyColumn[];
  /** The primary key's columns: the order rows are read in, and how an error names a row. */
  key: string[];
  /** Identity columns of the PostgreSQL table, whose sequences are set past the copied ids. */
  identity: string[];
}

/** `name` as a quoted SQL identifier (both dialects). */
export function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

interface SqliteColumn {
  name: string;
  pk: number;
}

function sqliteTables(db: Database.Database): Map<string, SqliteColumn[]> {
  const names = db
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
    )
    .pluck()
    .all() as string[];
  return new Map(
    names.map((name) => [
      name,
      db.prepare(`PRAGMA table_info(${quoteName(name)})`).all() as SqliteColumn[],
    ]),
  );
}

interface PgColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  is_identity: string;
}

/** Tables and columns of the schema the ledger's role uses (search_path), as the migrations made them. */
async function pgTables(db: SqlExecutor): Promise<Map<string, PgColumn[]>> {
  const rows =
    await db.all<PgColumn>(`SELECT c.table_name, c.column_name, c.data_type, c.is_identity
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`);
  const tables = new Map<string, PgColumn[]>();
  for (const row of rows) {
    const list = tables.get(row.table_name) ?? [];
    list.push(row);
    tables.set(row.table_name, list);
  }
  return tables;
}

/** Parent → children edges of the foreign keys between the schema's tables (a table's self-references left out). */
async function pgForeignKeys(db: SqlExecutor): Promise<{ child: string; parent: string }[]> {
  return db.all(`SELECT DISTINCT ch.relname AS child, pa.relname AS parent FROM pg_constraint co
    JOIN pg_class ch ON ch.oid = co.conrelid JOIN pg_class pa ON pa.oid = co.confrelid
    WHERE co.contype = 'f' AND ch.relnamespace = current_schema()::regnamespace AND ch.oid <> pa.oid`);
}

/** Tables in an order that inserts every referenced row before the rows referring to it; ties by name. */
function insertOrder(
  tables: readonly string[],
  edges: readonly { child: string; parent: string }[],
): string[] {
  const parents = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const { child, parent } of edges)
    if (parents.has(child) && parents.has(parent)) parents.get(child)?.add(parent);
  const done: string[] = [];
  const left = new Set(tables);
  while (left.size > 0) {
    const ready = [...left]
      .filter((t) => [...(parents.get(t) ?? [])].every((p) => !left.has(p)))
      .sort();
    if (ready.length === 0) {
      throw new EdocError(
        'EDOC_LEDGER_COPY_SCHEMA',
        `The foreign keys between ${[...left].join(', ')} form a cycle: no insert order exists`,
        {},
      );
    }
    for (const t of ready) {
      done.push(t);
      left.delete(t);
    }
  }
  return done;
}

/**
 * The copy's plan: every SQLite table with its columns, in insert order. Throws EDOC_LEDGER_COPY_SCHEMA
 * listing every difference at once (a table or column on one side only, a column type not carried).
 */
export async function planCopy(sqlite: Database.Database, pg: SqlExecutor): Promise<CopyTable[]> {
  const lite = sqliteTables(sqlite);
  const post = await pgTables(pg);
  const problems: string[] = [];
  const onlySqlite = [...lite.keys()].filter((t) => !post.has(t));
  const onlyPg = [...post.keys()].filter((t) => !lite.has(t) && !PG_ONLY_TABLES.has(t));
  if (onlySqlite.length > 0)
    problems.push(`tables missing in PostgreSQL: ${onlySqlite.join(', ')}`);
  if (onlyPg.length > 0) problems.push(`tables missing in the SQLite ledger: ${onlyPg.join(', ')}`);
  const plans = new Map<string, CopyTable>();
  for (const [name, columns] of lite) {
    const target = post.get(name);
    if (target === undefined) continue;
    const byName = new Map(target.map((c) => [c.column_name, c]));
    const missing = columns.filter((c) => !byName.has(c.name)).map((c) => `${name}.${c.name}`);
    const extra = target
      .filter((c) => !columns.some((s) => s.name === c.column_name))
      .map((c) => `${name}.${c.column_name}`);
    if (missing.length > 0) problems.push(`columns missing in PostgreSQL: ${missing.join(', ')}`);
    if (extra.length > 0)
      problems.push(`columns missing in the SQLite ledger: ${extra.join(', ')}`);
    const plan: CopyTable = {
      name,
      columns: [],
      key: columns
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      identity: target.filter((c) => c.is_identity === 'YES').map((c) => c.column_name),
    };
    for (const column of columns) {
      const pgColumn = byName.get(column.name);
      if (pgColumn === undefined) continue;
      const kind = PG_KINDS[pgColumn.data_type];
      if (kind === undefined)
        problems.push(
          `${name}.${column.name} is ${pgColumn.data_type} in PostgreSQL, a type the copy does not carry`,
        );
      else plan.columns.push({ name: column.name, kind });
    }
    if (plan.key.length === 0) problems.push(`${name} has no primary key in the SQLite ledger`);
    plans.set(name, plan);
  }
  if (problems.length > 0) {
    throw new EdocError(
      'EDOC_LEDGER_COPY_SCHEMA',
      `The SQLite ledger and the PostgreSQL schema differ, nothing was copied: ${problems.join('; ')}`,
      { problems },
    );
  }
  return insertOrder([...plans.keys()], await pgForeignKeys(pg)).map(
    (name) => plans.get(name) as CopyTable,
  );
}
