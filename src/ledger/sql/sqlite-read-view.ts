import Database from 'better-sqlite3';
import { checkParams, READ_PAGE } from './executor.js';
import type { SqlParams, SqlReadView } from './executor.js';

/**
 * A read view on a private read-only connection (WAL lets it read while the writer commits): one
 * deferred transaction whose snapshot is taken at its first read, here at once.
 */
export class SqliteReadView implements SqlReadView {
  readonly dialect = 'sqlite' as const;
  private readonly db: Database.Database;
  private closed = false;

  constructor(file: string, timeout: number) {
    this.db = new Database(file, { readonly: true, fileMustExist: true, timeout });
    try {
      this.db.exec('BEGIN');
      this.db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    checkParams(sql, params);
    return this.db.prepare(sql).all(...params) as T[];
  }

  async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    checkParams(sql, params);
    return this.db.prepare(sql).get(...params) as T | undefined;
  }

  async *pages<T>(sql: string, params: SqlParams = []): AsyncGenerator<T[]> {
    checkParams(sql, params);
    let page: T[] = [];
    for (const row of this.db.prepare(sql).iterate(...params)) {
      page.push(row as T);
      if (page.length < READ_PAGE) continue;
      yield page;
      page = [];
    }
    if (page.length > 0) yield page;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } finally {
      this.db.close();
    }
  }
}
