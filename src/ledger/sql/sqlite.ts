/**
 * The SQL port on SQLite (better-sqlite3): one connection, statements prepared once per text, and a
 * mutex so that the statements of a transaction, which awaits between them, never interleave with
 * another caller's on the one connection. Outside a transaction a statement runs at once when nothing
 * holds the connection (the common case costs no queueing). The write transactions of one turn of the
 * event loop share one COMMIT (`group-commit.ts`): several intakes, reports and submission batches at
 * once cost one fsync, and each caller still resumes only after its commit.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { checkParams } from './executor.js';
import type { RunResult, SqlExecutor, SqlParams, SqlReadView } from './executor.js';
import { GroupCommit } from './group-commit.js';
import { SqliteReadConnections } from './sqlite-read-view.js';
import { SqliteTransaction } from './sqlite-transaction.js';
import { StatementCache } from './statement-cache.js';
import { inTransactionScope, Mutex, refuseInsideOwnTransaction } from './tx-scope.js';

/** Prepared statements kept per connection; beyond this the oldest is dropped (generated SQL must not grow it forever). */
const STATEMENT_CACHE = 1_000;

export interface SqliteOpenOptions {
  /** How long a statement waits for another connection's lock. @defaultValue 5000 */
  busyTimeoutMs?: number;
  /** No writes, no pragmas that write. @defaultValue false */
  readOnly?: boolean;
}

/** Opens `file` with the ledger's settings (WAL, synchronous FULL, foreign keys) and wraps it. */
export function openSqliteExecutor(file: string, options: SqliteOpenOptions = {}): SqliteExecutor {
  if (!options.readOnly && !fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  const db = new Database(file, {
    timeout: options.busyTimeoutMs ?? 5000,
    readonly: options.readOnly === true,
    fileMustExist: options.readOnly === true,
  });
  try {
    if (!options.readOnly) {
      db.pragma('journal_mode = WAL');
      // FULL: a commit survives power loss, not only a process crash ("sending" is on disk before the request leaves)
      db.pragma('synchronous = FULL');
      db.pragma('temp_store = MEMORY');
    }
    db.pragma('foreign_keys = ON');
  } catch (err) {
    db.close();
    throw err;
  }
  return new SqliteExecutor(db, { ownsConnection: true, busyTimeoutMs: options.busyTimeoutMs });
}

export class SqliteExecutor implements SqlExecutor {
  readonly dialect = 'sqlite' as const;
  private readonly statements: StatementCache;
  private readonly mutex = new Mutex();
  /** The write transactions of this turn, not committed yet (`member`). */
  private group: GroupCommit | undefined;
  private closing: Promise<void> | undefined;
  /** The read views' connections, opened at the first view. */
  private reads: SqliteReadConnections | undefined;

  /** `ownsConnection`: close() closes `db` too (false when the caller keeps using it). */
  constructor(
    readonly db: Database.Database,
    private readonly options: { ownsConnection?: boolean; busyTimeoutMs?: number } = {},
  ) {
    this.statements = new StatementCache(db, STATEMENT_CACHE);
  }

  all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    return this.outside(() => this.allNow<T>(sql, params));
  }

  get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    return this.outside(() => this.getNow<T>(sql, params));
  }

  run(sql: string, params: SqlParams = []): Promise<RunResult> {
    return this.outside(() => this.runNow(sql, params));
  }

  runMany(sql: string, rows: readonly SqlParams[]): Promise<RunResult[]> {
    return this.outside(() => this.runManyNow(sql, rows));
  }

  exec(sql: string): Promise<void> {
    return this.outside(() => void this.db.exec(sql));
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // IMMEDIATE: the write lock is taken now, so a commit never fails on another process's lock halfway
    if (this.db.readonly) return this.inTransaction('BEGIN IMMEDIATE', fn);
    return this.member(fn);
  }

  read<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // deferred: a read transaction takes no write lock (and works on a read-only connection)
    return this.inTransaction('BEGIN', fn);
  }

  async readView(): Promise<SqlReadView> {
    refuseInsideOwnTransaction(this);
    this.checkOpen();
    if (this.db.memory)
      throw new Error(
        'a read view needs a ledger file (an in-memory database has no second connection)',
      );
    this.reads ??= new SqliteReadConnections(this.db.name, this.options.busyTimeoutMs ?? 5000);
    return this.reads.open();
  }

  /**
   * A write transaction: a member of the open group commit (see `GroupCommit`), whose COMMIT (and
   * fsync) ends the turn; its promise resolves once that COMMIT is done.
   */
  private async member<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    refuseInsideOwnTransaction(this);
    this.checkOpen();
    await this.mutex.lock();
    let group: GroupCommit;
    let result: T;
    try {
      // The group's first member is the transaction itself: nothing else is in it to keep, so it needs
      // no savepoint (whose undo copy of every page it changes SQLite keeps in memory: a 333,334-row
      // release at the end of a read took 100 MB). Members that join the open group are savepoints.
      const first = this.group === undefined;
      group = this.group ?? this.openGroup();
      if (!first) this.db.exec('SAVEPOINT tx_member');
      const tx = new SqliteTransaction(this);
      try {
        result = await inTransactionScope(this, () => fn(tx));
        tx.finish();
        if (!first) this.db.exec('RELEASE tx_member');
      } catch (err) {
        tx.finish();
        if (this.db.inTransaction && !first) {
          this.db.exec('ROLLBACK TO tx_member');
          this.db.exec('RELEASE tx_member');
        } else {
          // the first member's own transaction, or SQLite rolled it back (a full disk, an I/O error): the
          // group goes with it (a first member is alone in it)
          if (this.db.inTransaction) this.db.exec('ROLLBACK');
          this.group = undefined;
          group.fail(err);
        }
        throw err;
      }
    } finally {
      this.mutex.unlock();
    }
    return group.committed.then(() => result);
  }

  /** Commits the open group, if it is still `group` (the caller holds the connection, or takes it here). */
  private async commitGroup(group: GroupCommit, locked = false): Promise<void> {
    if (!locked) await this.mutex.lock();
    try {
      if (this.group !== group) return;
      this.group = undefined;
      try {
        this.db.exec('COMMIT');
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        group.fail(err);
        return;
      }
      group.done();
    } finally {
      if (!locked) this.mutex.unlock();
    }
  }

  private async inTransaction<T>(begin: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    refuseInsideOwnTransaction(this);
    this.checkOpen();
    await this.mutex.lock();
    try {
      // a read transaction of its own: the open group is committed first
      if (this.group !== undefined) await this.commitGroup(this.group, true);
      this.db.exec(begin);
      const tx = new SqliteTransaction(this);
      try {
        const result = await inTransactionScope(this, () => fn(tx));
        tx.finish();
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        tx.finish();
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.mutex.unlock();
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // after the transaction in flight, if any
      await this.mutex.lock();
      try {
        if (this.group !== undefined) await this.commitGroup(this.group, true);
        this.statements.clear();
        this.reads?.close();
        if (this.options.ownsConnection && this.db.open) this.db.close();
      } finally {
        this.mutex.unlock();
      }
    })();
    return this.closing;
  }

  // --- on the connection, now (the caller holds it) ------------------------------------------------
  /** @internal */
  allNow<T>(sql: string, params: SqlParams): T[] {
    const stmt = this.prepare(sql, params);
    if (!stmt.reader) {
      stmt.run(...params);
      return [];
    }
    return stmt.all(...params) as T[];
  }

  /** @internal */
  getNow<T>(sql: string, params: SqlParams): T | undefined {
    const stmt = this.prepare(sql, params);
    if (!stmt.reader) {
      stmt.run(...params);
      return undefined;
    }
    return stmt.get(...params) as T | undefined;
  }

  /** @internal */
  runNow(sql: string, params: SqlParams): RunResult {
    return { changes: this.prepare(sql, params).run(...params).changes };
  }

  /** @internal */
  runManyNow(sql: string, rows: readonly SqlParams[]): RunResult[] {
    if (rows.length === 0) return [];
    const stmt = this.prepare(sql, rows[0]);
    const out: RunResult[] = [];
    for (const params of rows) {
      checkParams(sql, params);
      out.push({ changes: stmt.run(...params).changes });
    }
    return out;
  }

  private prepare(sql: string, params: SqlParams): Database.Statement {
    checkParams(sql, params);
    return this.statements.get(sql);
  }

  private checkOpen(): void {
    if (this.closing !== undefined) throw new Error('the ledger executor is closed');
  }

  /** BEGIN IMMEDIATE and a group whose COMMIT ends this turn (the caller holds the connection). */
  private openGroup(): GroupCommit {
    this.db.exec('BEGIN IMMEDIATE');
    const opened = new GroupCommit();
    this.group = opened;
    setImmediate(() => void this.commitGroup(opened));
    return opened;
  }

  /** A statement outside any transaction: at once when the connection is free, else after the holder. */
  private async outside<T>(op: () => T): Promise<T> {
    refuseInsideOwnTransaction(this);
    this.checkOpen();
    if (!this.mutex.tryLock()) await this.mutex.lock();
    let group: GroupCommit | undefined;
    let result: T;
    try {
      result = op();
      group = this.group;
    } finally {
      this.mutex.unlock();
    }
    // inside the open group: a write is durable (and a read's answer committed) only with its COMMIT
    if (group !== undefined) await group.committed;
    return result;
  }
}
