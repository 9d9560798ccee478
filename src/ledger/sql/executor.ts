/**
 * The SQL port: the one async interface the ledger's logic is written against, with a SQLite backend
 * (sqlite.ts, better-sqlite3) and a PostgreSQL backend (postgres.ts, node-postgres). The logic above it
 * (exactly-once, in-doubt, Regla 90) is written once; the backends differ in SQL only, and as little SQL
 * as possible differs: both speak this dialect-neutral subset.
 *
 * - Placeholders are `?` (positional). PostgreSQL gets them as `$1…$n` (rewritten outside string
 *   literals, quoted names and comments); `?` inside '…' is text.
 * - A new row's id: `INSERT … RETURNING id` with get() (SQLite has RETURNING since 3.35). There is no
 *   lastInsertRowid, which PostgreSQL has no cheap equivalent of.
 * - Integers are JS numbers in both. PostgreSQL sends int8 (bigint, count(*)) as text; the backend
 *   parses it to a number and throws beyond Number.MAX_SAFE_INTEGER rather than lose digits (ids, epoch
 *   ms, counts and lease epochs all stay far below 2^53). numeric (SUM of a bigint) stays a string:
 *   cast it (`SUM(n)::bigint`) where a number is wanted. Flags are INTEGER 0/1 in both schemas, so the
 *   same `WHERE own_number = 1` works everywhere; a JS boolean is not a parameter (SQLite refuses it).
 * - JSON is TEXT in both: the text written is the text read back, byte for byte (jsonb would reorder
 *   keys and drop duplicates of a raw document the ledger must keep as received).
 * - `undefined` is not a parameter (a missing value is a bug, not NULL): write null.
 * - A statement that fails inside a transaction ends it on PostgreSQL (every later statement is refused
 *   until the rollback). To go on after a failure that is expected (a unique key already there), run
 *   that statement in `tx.transaction()`: a savepoint, which rolls back alone in both backends.
 */
export type SqlDialect = 'sqlite' | 'postgres';

export type SqlParams = readonly unknown[];

export interface RunResult {
  /** Rows inserted, updated or deleted by the statement. */
  changes: number;
}

export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** Every row of a query. */
  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  /** The first row of a query, or undefined. */
  get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /** A statement that returns no rows (or whose rows are not wanted). */
  run(sql: string, params?: SqlParams): Promise<RunResult>;
  /**
   * One statement run once per parameter row, in order, as one call; each row's result. For a batch of
   * rows where only a per-row statement will do: on SQLite the rows run in one synchronous loop, one await
   * for the batch instead of one per row (an intake of 1,000 documents made 2,000 awaited calls otherwise).
   * On PostgreSQL it is one round trip per row, no cheaper than run() in a loop: there write one
   * set-based statement (`unnest`) instead. Not atomic by itself: a failing row rejects the call, the rows
   * before it stay done; run it inside a transaction to have all or nothing.
   */
  runMany(sql: string, rows: readonly SqlParams[]): Promise<RunResult[]>;
  /** Several statements without parameters, in order (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws (its error is
   * rethrown). Inside `fn`, use `tx` only: the executor it was called on is another connection
   * (PostgreSQL) or waits for this transaction to end (SQLite), so both backends refuse that call
   * with an error instead of deadlocking or escaping the transaction. On `tx`, transaction() opens a
   * savepoint: the inner part rolls back alone.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in one read-only transaction: every read in it sees the same committed state (SQLite: a
   * deferred transaction, which takes no write lock; PostgreSQL: REPEATABLE READ READ ONLY). Inside a
   * transaction it simply runs `fn` on that transaction.
   */
  read<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * A consistent read-only view on a connection of its own, held until closed: for reads that stream
   * (a report of 200,000 documents) while writers commit. Not inside a transaction.
   */
  readView(): Promise<SqlReadView>;
  /** Closes the connection(s) after the statements in flight. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * A read-only view (SqlExecutor.readView): one read transaction on its own connection. `pages` streams
 * rows in pages of at most READ_PAGE (SQLite: a statement stepped row by row; PostgreSQL: a cursor fetched
 * page by page), so memory stays bounded however many rows the query has, and a consumer awaits once per
 * page rather than once per row (a 200,000-row report made two async hops per row otherwise, and the
 * garbage of those showed in its heap). While an iteration is open, run nothing else on the view.
 */
/** The most rows a read view's page holds. */
export const READ_PAGE = 500;

export interface SqlReadView {
  readonly dialect: SqlDialect;
  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined>;
  pages<T = Record<string, unknown>>(sql: string, params?: SqlParams): AsyncIterable<T[]>;
  /** Ends the read transaction and frees the connection. Idempotent. */
  close(): Promise<void>;
}

/** runMany() as run() row after row, in order (PostgreSQL: a round trip per row either way). */
export async function runEach(
  q: Pick<SqlExecutor, 'run'>,
  sql: string,
  rows: readonly SqlParams[],
): Promise<RunResult[]> {
  const out: RunResult[] = [];
  for (const params of rows) out.push(await q.run(sql, params));
  return out;
}

/** Checks the parameters the same way for both backends, before they reach the driver. */
export function checkParams(sql: string, params: SqlParams): void {
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    if (value === undefined)
      throw new TypeError(
        `SQL parameter ${i + 1} is undefined (write null for NULL): ${sqlHead(sql)}`,
      );
    if (typeof value === 'boolean')
      throw new TypeError(`SQL parameter ${i + 1} is a boolean (write 1 or 0): ${sqlHead(sql)}`);
  }
}

/** The start of a statement, for error messages (never its parameters: they may be documents). */
export function sqlHead(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}
