import Database from 'better-sqlite3';
import { checkParams, READ_PAGE } from './executor.js';
import type { SqlParams, SqlReadView } from './executor.js';
import { StatementCache } from './statement-cache.js';

/** Idle read-only connections kept for the next view; beyond this a closed view closes its connection. */
const IDLE_READ_CONNECTIONS = 4;
/** Statements kept per read connection (its reads are the reports' few texts). */
const READ_STATEMENTS = 100;

/** A read-only connection and the statements prepared on it. */
class ReadConnection {
  private readonly statements: StatementCache;

  constructor(readonly db: Database.Database) {
    this.statements = new StatementCache(db, READ_STATEMENTS);
  }

  statement(sql: string): Database.Statement {
    return this.statements.get(sql);
  }
}

/**
 * The read-only connections of one ledger file, reused from view to view: opening one (and reading the
 * schema, and preparing its statements) cost each file report ~1 ms of the main thread, 200 reports
 * at once 0.25 s. An idle connection holds no transaction, so it keeps no lock and no snapshot: it
 * never holds a checkpoint back.
 */
export class SqliteReadConnections {
  private readonly idle: ReadConnection[] = [];
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly timeout: number,
  ) {}

  /** A view: one deferred transaction whose snapshot is taken at its first read, here at once. */
  open(): SqliteReadView {
    const conn =
      this.idle.pop() ??
      new ReadConnection(
        new Database(this.file, { readonly: true, fileMustExist: true, timeout: this.timeout }),
      );
    try {
      conn.db.exec('BEGIN');
      conn.statement('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      if (conn.db.inTransaction) conn.db.exec('ROLLBACK');
      conn.db.close();
      throw err;
    }
    return new SqliteReadView(conn, (done, reusable) => this.give(done, reusable));
  }

  /** Closes the idle connections; a view still open closes its own when it ends. Idempotent. */
  close(): void {
    this.closed = true;
    for (const conn of this.idle.splice(0)) conn.db.close();
  }

  private give(conn: ReadConnection, reusable: boolean): void {
    if (reusable && !this.closed && this.idle.length < IDLE_READ_CONNECTIONS) this.idle.push(conn);
    else conn.db.close();
  }
}

/**
 * A read view on a private read-only connection (WAL lets it read while the writer commits): one
 * deferred transaction, ended at close, when its connection goes back to the pool.
 */
export class SqliteReadView implements SqlReadView {
  readonly dialect = 'sqlite' as const;
  private closed = false;
  /** The statements `pages` is stepping through: a consumer that stops without return() leaves one open. */
  private readonly stepping = new Set<IterableIterator<unknown>>();

  constructor(
    private readonly conn: ReadConnection,
    private readonly release: (conn: ReadConnection, reusable: boolean) => void,
  ) {}

  async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    this.checkOpen(sql, params);
    return this.conn.statement(sql).all(...params) as T[];
  }

  async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    this.checkOpen(sql, params);
    return this.conn.statement(sql).get(...params) as T | undefined;
  }

  async *pages<T>(sql: string, params: SqlParams = []): AsyncGenerator<T[]> {
    this.checkOpen(sql, params);
    const rows = this.conn.statement(sql).iterate(...params);
    this.stepping.add(rows);
    try {
      let page: T[] = [];
      for (const row of rows) {
        page.push(row as T);
        if (page.length < READ_PAGE) continue;
        yield page;
        page = [];
      }
      if (page.length > 0) yield page;
    } finally {
      this.stepping.delete(rows);
    }
  }

  /** Its connection serves the next view once this one is closed: a closed view reads nothing. */
  private checkOpen(sql: string, params: SqlParams): void {
    if (this.closed) throw new Error('the read view is closed');
    checkParams(sql, params);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const db = this.conn.db;
    // a statement left mid-iteration (its consumer stopped without return()) is ended here: SQLite
    // refuses the COMMIT (and closing) while one is stepping
    for (const rows of this.stepping) rows.return?.();
    this.stepping.clear();
    let reusable = true;
    try {
      if (db.inTransaction) db.exec('COMMIT');
    } catch (err) {
      reusable = false;
      throw err;
    } finally {
      this.release(this.conn, reusable && !db.inTransaction);
    }
  }
}
