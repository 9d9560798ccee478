/**
 * The few places where the ledger's SQL differs between SQLite and PostgreSQL, each a small function of
 * the executor's dialect, so that a statement keeps both of its forms side by side where it is written.
 * Everything else the ledger says is the common subset (executor.ts).
 */
import type { SqlDialect, SqlExecutor } from './executor.js';

type Dialected = { readonly dialect: SqlDialect };

/** The SQLite form or the PostgreSQL form of one piece of a statement. */
export function bySql(q: Dialected, forms: { sqlite: string; postgres: string }): string {
  return forms[q.dialect];
}

/**
 * A list of ids as ONE parameter (a batch of 500 is one statement, not 500 placeholders):
 * `d.id IN ${ids.sql}` with `ids.param`. SQLite reads a JSON array (json_each), PostgreSQL a bigint[].
 */
export function idList(q: Dialected, ids: Iterable<number>): { sql: string; param: unknown } {
  const list = [...ids];
  return q.dialect === 'sqlite'
    ? { sql: '(SELECT value FROM json_each(?))', param: JSON.stringify(list) }
    : { sql: '(SELECT unnest(CAST(? AS BIGINT[])))', param: list };
}

/** The same for texts (keys): a JSON array, or a text[]. */
export function textList(q: Dialected, texts: Iterable<string>): { sql: string; param: unknown } {
  const list = [...texts];
  return q.dialect === 'sqlite'
    ? { sql: '(SELECT value FROM json_each(?))', param: JSON.stringify(list) }
    : { sql: '(SELECT unnest(CAST(? AS TEXT[])))', param: list };
}

/** A column of a table of values given as parameters (valuesTable): its name and its PostgreSQL type. */
export type ValueColumn = readonly [name: string, pgType: 'BIGINT' | 'SMALLINT' | 'TEXT'];

/**
 * Rows of values as a table for ONE statement (`FROM ${t.sql} AS v`, parameters `t.params`), in their
 * order: a batch of verdicts or events is one statement whatever its size. SQLite reads one JSON array of
 * rows (json_each; `->>` gives each text back byte for byte, integers as integers, null as NULL),
 * PostgreSQL one array per column (unnest). Name the columns apart from the target table's (SQLite's
 * RETURNING names the target's columns unqualified).
 */
export function valuesTable(
  q: Dialected,
  columns: readonly ValueColumn[],
  rows: readonly (readonly unknown[])[],
): { sql: string; params: unknown[] } {
  if (q.dialect === 'sqlite') {
    return {
      sql: `(SELECT ${columns.map(([name], i) => `value ->> ${i} AS ${name}`).join(', ')} FROM json_each(?) ORDER BY key)`,
      params: [JSON.stringify(rows)],
    };
  }
  return {
    sql: `(SELECT * FROM unnest(${columns.map(([, type]) => `CAST(? AS ${type}[])`).join(', ')}) AS t(${columns.map(([name]) => name).join(', ')}))`,
    params: columns.map((_, i) => rows.map((r) => r[i])),
  };
}

/** The larger of two values (SQLite's two-argument max, PostgreSQL's GREATEST). */
export function greatest(q: Dialected, a: string, b: string): string {
  return q.dialect === 'sqlite' ? `max(${a}, ${b})` : `GREATEST(${a}, ${b})`;
}

/** The values of a group joined with ',' (group_concat / string_agg). */
export function joinedGroup(q: Dialected, column: string): string {
  return q.dialect === 'sqlite' ? `group_concat(${column})` : `string_agg(${column}, ',')`;
}

/**
 * `column` ends with '/' followed by the parameter (a key's or path's tail): two placeholders, both
 * the same text. SQLite counts a negative substr start from the end; PostgreSQL has right().
 */
export function endsWithTail(q: Dialected, column: string): string {
  return q.dialect === 'sqlite'
    ? `substr(${column}, -length(?) - 1) = '/' || ?`
    : `right(${column}, length(CAST(? AS TEXT)) + 1) = '/' || CAST(? AS TEXT)`;
}

/** A parameter whose type the statement alone does not tell PostgreSQL (a select list, a CASE). */
export const INT_PARAM = 'CAST(? AS BIGINT)';

/** Whether the executor is PostgreSQL (for the rare branch that is more than a piece of SQL). */
export function isPostgres(q: SqlExecutor | Dialected): boolean {
  return q.dialect === 'postgres';
}
