/**
 * PostgreSQL's read view (SqlExecutor.readView): a REPEATABLE READ READ ONLY transaction on a pooled
 * connection of its own, `pages` through a cursor. Its own file to keep postgres.ts one concept (the executor).
 */
import type pg from 'pg';
import { READ_PAGE } from './executor.js';
import type { SqlParams, SqlReadView } from './executor.js';
import type { PgPhase } from './pg-errors.js';

/** What the view needs of its executor (postgres.ts): a statement on a client, placeholders rewritten, failures classified. */
interface StatementSender {
  send(
    client: pg.PoolClient,
    sql: string,
    params: SqlParams | undefined,
    phase: PgPhase,
  ): Promise<pg.QueryResult>;
}

/** A read view: a REPEATABLE READ READ ONLY transaction on a connection of its own; `pages` through a cursor. */
export class PostgresReadView implements SqlReadView {
  readonly dialect = 'postgres' as const;
  private closing: Promise<void> | undefined;
  private cursors = 0;

  constructor(
    private readonly root: StatementSender,
    private readonly client: pg.PoolClient,
  ) {}

  async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    return (await this.send(sql, params)).rows as T[];
  }

  async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    return (await this.send(sql, params)).rows[0] as T | undefined;
  }

  async *pages<T>(sql: string, params: SqlParams = []): AsyncGenerator<T[]> {
    const name = `edoc_view_${++this.cursors}`;
    await this.send(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`, params);
    try {
      for (;;) {
        const rows = (await this.send(`FETCH ${READ_PAGE} FROM ${name}`, undefined)).rows as T[];
        if (rows.length > 0) yield rows;
        if (rows.length < READ_PAGE) return;
      }
    } finally {
      if (this.closing === undefined)
        await this.send(`CLOSE ${name}`, undefined).catch(() => undefined);
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      let broken = false;
      try {
        await this.client.query('COMMIT');
      } catch {
        broken = true;
      }
      this.client.release(broken);
    })();
    return this.closing;
  }

  private send(sql: string, params: SqlParams | undefined): Promise<pg.QueryResult> {
    if (this.closing !== undefined)
      return Promise.reject(new Error('a statement on a read view that is closed'));
    return this.root.send(this.client, sql, params, 'query');
  }
}
