/**
 * The SQL port on PostgreSQL (node-postgres): a pool of connections; `?` placeholders become `$n`
 * (cached per statement text); a transaction runs on one checked-out connection. Connection failures
 * become EDOC_LEDGER_UNREACHABLE / _REFUSED / _CONNECTION_LOST naming the server, never its password.
 */
import pg from 'pg';
import { checkParams, runEach, sqlHead } from './executor.js';
import type { RunResult, SqlExecutor, SqlParams, SqlReadView } from './executor.js';
import { resolvePgConnection } from '../../config/pg-connection.js';
import type { PgConnection } from '../../config/pg-connection.js';
import { classifyPgError } from './pg-errors.js';
import type { PgPhase } from './pg-errors.js';
import { PostgresReadView } from './pg-read-view.js';
import { toNumberedPlaceholders } from './placeholders.js';
import type { Rewritten } from './placeholders.js';
import { inTransactionScope, refuseInsideOwnTransaction } from './tx-scope.js';

const INT8_OID = 20;
/** One snapshot for every statement of the transaction, and no writes. */
const READ_VIEW_BEGIN = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';
const REWRITE_CACHE = 2_000;

export interface PostgresOptions {
  /** Connections at most. @defaultValue 10 */
  maxConnections?: number;
  /** How long opening a connection may take. @defaultValue 10000 */
  connectTimeoutMs?: number;
  /** Shown in pg_stat_activity. @defaultValue 'edoc-bridge' */
  applicationName?: string;
  /** Where PG* variables and HOME (for ~/.pgpass) come from. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** An idle pooled connection failed (the server went away between statements); the pool drops it. */
  onIdleError?: (err: unknown) => void;
  /** Every transaction of every connection read-only (`edoc-bridge status`): a write is refused by the server. @defaultValue false */
  readOnly?: boolean;
  /**
   * The server ends a session left idle inside a transaction this long (idle_in_transaction_session_timeout):
   * a cluster node frozen mid-transaction must not hold its row locks past its lease. @defaultValue none
   */
  idleInTransactionTimeoutMs?: number;
}

/** int8 as a JS number: exact up to 2^53, an error beyond (never a silently rounded id). */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw new RangeError(`a bigint column holds ${text}, beyond the exact range of a JS number`);
  return value;
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

/**
 * A client that closes its socket when connecting fails on our side (no password to answer the server's
 * SCRAM challenge): node-postgres leaves that socket open, and the server keeps the half-authenticated
 * session until authentication_timeout (a minute), which blocks DROP DATABASE and holds a slot.
 */
class LedgerClient extends pg.Client {
  override connect(): Promise<pg.Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
  override connect(
    callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void),
  ): Promise<pg.Client> | void {
    const closeOnError = (err: Error | null): void => {
      if (err)
        (
          this as unknown as { connection?: { stream?: { destroy(): void } } }
        ).connection?.stream?.destroy();
    };
    if (callback === undefined) {
      return super.connect().catch((err: Error) => {
        closeOnError(err);
        throw err;
      });
    }
    super.connect(((err: Error | null, c: pg.Client) => {
      closeOnError(err);
      (callback as (err: Error | null, c: pg.Client) => void)(err, c);
    }) as (err: Error) => void);
  }
}

/** Opens a pool on `url` (resolved once: password, PG* variables, ~/.pgpass); nothing connects until the first statement. */
export function openPostgresExecutor(url: string, options: PostgresOptions = {}): PostgresExecutor {
  return new PostgresExecutor(resolvePgConnection(url, options.env), options);
}

export class PostgresExecutor implements SqlExecutor {
  readonly dialect = 'postgres' as const;
  /** `postgres://user@host:port/db`, no password: for messages. */
  readonly display: string;
  private readonly pool: pg.Pool;
  private readonly rewrites = new Map<string, Rewritten>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly connection: PgConnection,
    options: PostgresOptions = {},
  ) {
    this.display = connection.display;
    this.pool = new pg.Pool({
      connectionString: connection.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      application_name: options.applicationName ?? 'edoc-bridge',
      ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
      ...(options.idleInTransactionTimeoutMs === undefined
        ? {}
        : { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs }),
      types,
      Client: LedgerClient as unknown as new () => pg.ClientBase,
    });
    // an idle client that dies (server restart, pg_terminate_backend) is an 'error' event: unhandled, it would end the process
    this.pool.on('error', (err) => options.onIdleError?.(this.classify(err, 'query')));
    // the same on a checked-out client (in a transaction) would be an uncaught exception: its statement in
    // flight, or the next one, fails with the error anyway, so the event itself is only swallowed
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    return (await this.outside(sql, params)).rows as T[];
  }

  async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    return (await this.outside(sql, params)).rows[0] as T | undefined;
  }

  async run(sql: string, params: SqlParams = []): Promise<RunResult> {
    return { changes: (await this.outside(sql, params)).rowCount ?? 0 };
  }

  runMany(sql: string, rows: readonly SqlParams[]): Promise<RunResult[]> {
    return runEach(this, sql, rows);
  }

  async exec(sql: string): Promise<void> {
    await this.withClient(async (client) => {
      await this.send(client, sql, undefined, 'query');
    });
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // READ COMMITTED: the ledger's writes re-check their condition in the statement that changes a row
    // (`WHERE state = 'sending'`), which READ COMMITTED re-evaluates on the newest row version.
    return this.inTransaction('BEGIN', fn);
  }

  read<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.inTransaction(READ_VIEW_BEGIN, fn);
  }

  async readView(): Promise<SqlReadView> {
    refuseInsideOwnTransaction(this);
    this.checkOpen();
    const client = await this.connect();
    try {
      await this.send(client, READ_VIEW_BEGIN, undefined, 'query');
    } catch (err) {
      client.release(true);
      throw err;
    }
    return new PostgresReadView(this, client);
  }

  private async inTransaction<T>(begin: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    refuseInsideOwnTransaction(this);
    this.checkOpen();
    const client = await this.connect();
    let broken = false;
    try {
      await this.send(client, begin, undefined, 'query');
      const tx = new PostgresTransaction(this, client);
      try {
        const result = await inTransactionScope(this, () => fn(tx));
        tx.finish();
        await this.send(client, 'COMMIT', undefined, 'commit');
        return result;
      } catch (err) {
        tx.finish();
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        throw err;
      }
    } finally {
      // a connection that could not even roll back is dropped, not handed to the next caller
      client.release(broken);
    }
  }

  close(): Promise<void> {
    this.closing ??= this.pool.end().catch(() => undefined);
    return this.closing;
  }

  /** @internal One statement on `client`, placeholders rewritten; failures classified. */
  async send(
    client: pg.PoolClient,
    sql: string,
    params: SqlParams | undefined,
    phase: PgPhase,
  ): Promise<pg.QueryResult> {
    try {
      if (params === undefined) return await client.query(sql);
      checkParams(sql, params);
      const rewritten = this.rewrite(sql);
      if (rewritten.count !== params.length) {
        throw new RangeError(
          `the statement has ${rewritten.count} placeholders and got ${params.length} values: ${sqlHead(sql)}`,
        );
      }
      return await client.query(rewritten.text, params as unknown[]);
    } catch (err) {
      throw this.classify(err, phase);
    }
  }

  private rewrite(sql: string): Rewritten {
    let rewritten = this.rewrites.get(sql);
    if (rewritten === undefined) {
      rewritten = toNumberedPlaceholders(sql);
      if (this.rewrites.size >= REWRITE_CACHE)
        this.rewrites.delete(this.rewrites.keys().next().value as string);
      this.rewrites.set(sql, rewritten);
    }
    return rewritten;
  }

  private classify(err: unknown, phase: PgPhase): unknown {
    return classifyPgError(err, phase, this.display, this.connection.password);
  }

  private checkOpen(): void {
    if (this.closing !== undefined) throw new Error('the ledger executor is closed');
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw this.classify(err, 'connect');
    }
  }

  private async withClient<T>(op: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    refuseInsideOwnTransaction(this);
    this.checkOpen();
    const client = await this.connect();
    let broken = false;
    try {
      return await op(client);
    } catch (err) {
      broken = (err as { code?: unknown }).code === 'EDOC_LEDGER_CONNECTION_LOST';
      throw err;
    } finally {
      client.release(broken);
    }
  }

  private outside(sql: string, params: SqlParams): Promise<pg.QueryResult> {
    return this.withClient((client) => this.send(client, sql, params, 'query'));
  }
}

/** The executor a transaction's function gets: its one connection. node-postgres queues its statements in order. */
class PostgresTransaction implements SqlExecutor {
  readonly dialect = 'postgres' as const;
  private finished = false;
  private savepoints = 0;

  constructor(
    private readonly root: PostgresExecutor,
    private readonly client: pg.PoolClient,
  ) {}

  finish(): void {
    this.finished = true;
  }

  async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    return (await this.send(sql, params)).rows as T[];
  }

  async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    return (await this.send(sql, params)).rows[0] as T | undefined;
  }

  async run(sql: string, params: SqlParams = []): Promise<RunResult> {
    return { changes: (await this.send(sql, params)).rowCount ?? 0 };
  }

  runMany(sql: string, rows: readonly SqlParams[]): Promise<RunResult[]> {
    return runEach(this, sql, rows);
  }

  async exec(sql: string): Promise<void> {
    await this.send(sql, undefined);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const name = `sp${++this.savepoints}`;
    await this.send(`SAVEPOINT ${name}`, undefined);
    try {
      const result = await fn(this);
      await this.send(`RELEASE SAVEPOINT ${name}`, undefined);
      return result;
    } catch (err) {
      // when even this fails the whole transaction is lost, and the caller's rollback says so: keep the first error
      await this.send(`ROLLBACK TO SAVEPOINT ${name}`, undefined).catch(() => undefined);
      throw err;
    }
  }

  async read<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return fn(this);
  }

  async readView(): Promise<SqlReadView> {
    throw new Error('readView() inside a transaction: open it on the executor');
  }

  async close(): Promise<void> {
    throw new Error('close() on a transaction: close the executor it came from');
  }

  private send(sql: string, params: SqlParams | undefined): Promise<pg.QueryResult> {
    if (this.finished)
      return Promise.reject(
        new Error(
          'a statement on a transaction that has already ended (a call not awaited inside it?)',
        ),
      );
    return this.root.send(this.client, sql, params, 'query');
  }
}
