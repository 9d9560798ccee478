/**
 * The executor a SQLite transaction's function gets (sqlite.ts): the statements of its connection run at
 * once, nested transactions are savepoints, and a statement after the transaction ended is refused.
 */
import type Database from 'better-sqlite3';
import type { RunResult, SqlExecutor, SqlParams, SqlReadView } from './executor.js';

/** What a transaction runs its statements on: the executor's connection, already held. */
export interface TransactionRoot {
  readonly db: Database.Database;
  allNow<T>(sql: string, params: SqlParams): T[];
  getNow<T>(sql: string, params: SqlParams): T | undefined;
  runNow(sql: string, params: SqlParams): RunResult;
  runManyNow(sql: string, rows: readonly SqlParams[]): RunResult[];
}

/** The executor a transaction's function gets: the same connection, no locking (the transaction holds it). */
export class SqliteTransaction implements SqlExecutor {
  readonly dialect = 'sqlite' as const;
  private finished = false;
  private savepoints = 0;

  constructor(private readonly root: TransactionRoot) {}

  finish(): void {
    this.finished = true;
  }

  async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    this.check();
    return this.root.allNow<T>(sql, params);
  }

  async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    this.check();
    return this.root.getNow<T>(sql, params);
  }

  async run(sql: string, params: SqlParams = []): Promise<RunResult> {
    this.check();
    return this.root.runNow(sql, params);
  }

  async runMany(sql: string, rows: readonly SqlParams[]): Promise<RunResult[]> {
    this.check();
    return this.root.runManyNow(sql, rows);
  }

  async exec(sql: string): Promise<void> {
    this.check();
    this.root.db.exec(sql);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    this.check();
    const name = `sp${++this.savepoints}`;
    this.root.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn(this);
      this.root.db.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      if (this.root.db.inTransaction) {
        this.root.db.exec(`ROLLBACK TO ${name}`);
        this.root.db.exec(`RELEASE ${name}`);
      }
      throw err;
    }
  }

  async read<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    this.check();
    return fn(this);
  }

  async readView(): Promise<SqlReadView> {
    throw new Error('readView() inside a transaction: open it on the executor');
  }

  async close(): Promise<void> {
    throw new Error('close() on a transaction: close the executor it came from');
  }

  private check(): void {
    if (this.finished)
      throw new Error(
        'a statement on a transaction that has already ended (a call not awaited inside it?)',
      );
  }
}
