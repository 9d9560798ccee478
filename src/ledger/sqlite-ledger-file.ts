/**
 * Opening the SQLite ledger file of a state folder: with the process lock, owner-only, WAL, durable
 * commits and migrated; or an existing one of the current schema without the lock (read-only, or
 * shared for short operator writes). The Ledger class (ledger.ts) runs on what this opens.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EdocError } from '../errors.js';
import { ledgerNow } from '../policy/ledger-clock.js';
import { acquireLock, releaseLock, type HeldLock } from './lock.js';
import { migrate, SCHEMA_VERSION } from './migrations.js';
import type { LedgerFence } from './port.js';
import { SqliteExecutor } from './sql/sqlite.js';

export const LEDGER_FILE = 'ledger.sqlite';

export interface LedgerOpenOptions {
  /** For `edoc-bridge status` beside a running daemon: no lock, no migrations, no writes. @defaultValue false */
  readOnly?: boolean;
  /**
   * For operator commands (`edoc-bridge retry`) beside a running daemon: writes short transactions
   * without taking the process lock (SQLite's own locking keeps them consistent); no migrations.
   * @defaultValue false
   */
  shared?: boolean;
  /** How long a statement waits for another connection's lock (SQLite). @defaultValue 5000 */
  busyTimeoutMs?: number;
  /** The cluster's fencing hook (port.ts); none on a single node. */
  fence?: LedgerFence;
}

/** What the Ledger is built on: the connection, its mode, the lock when taken, and lines worth logging. */
export interface OpenedSqliteLedger {
  sql: SqliteExecutor;
  readOnly: boolean;
  lock?: HeldLock;
  /** Things worth one log line from the opener (a stale lock taken over, a migration). */
  notes: string[];
}

export function openSqliteLedger(
  stateDir: string,
  options: LedgerOpenOptions = {},
): OpenedSqliteLedger {
  const dbPath = path.join(path.resolve(stateDir), LEDGER_FILE);
  const timeout = options.busyTimeoutMs ?? 5000;
  if (options.readOnly || options.shared) {
    const db = openExisting(dbPath, stateDir, options.readOnly === true, timeout);
    return {
      sql: new SqliteExecutor(db, { ownsConnection: true, busyTimeoutMs: timeout }),
      readOnly: options.readOnly === true,
      notes: [],
    };
  }
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const lock = acquireLock(stateDir);
  let db: Database.Database | undefined;
  try {
    makePrivate(dbPath);
    db = new Database(dbPath, { timeout });
    db.pragma('journal_mode = WAL');
    // FULL: a commit survives power loss, not only a process crash — "sending" must be on disk before the request leaves
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Statement journals and sorts in memory: SQLite otherwise writes them to temporary files in /var/tmp
    // (one file per multi-row statement of a batch commit, ~200 writes each); they never serve crash recovery.
    db.pragma('temp_store = MEMORY');
    const m = migrate(db);
    if (lock.tookOverFrom) {
      db.prepare('INSERT INTO events(at, type, data) VALUES (?, ?, ?)').run(
        ledgerNow(),
        'lock-taken-over',
        JSON.stringify(lock.tookOverFrom),
      );
    }
    const opened: OpenedSqliteLedger = {
      sql: new SqliteExecutor(db, { ownsConnection: true, busyTimeoutMs: timeout }),
      readOnly: false,
      lock,
      notes: [],
    };
    if (m.from !== m.to)
      opened.notes.push(`ledger schema migrated from version ${m.from} to ${m.to}`);
    if (lock.tookOverFrom) {
      const t = lock.tookOverFrom;
      opened.notes.push(
        `took over a stale lock of pid ${t.pid} (started ${t.startedAt}); that process is gone`,
      );
    }
    return opened;
  } catch (err) {
    db?.close();
    releaseLock(lock);
    if (err instanceof EdocError) throw err;
    throw new EdocError(
      'EDOC_LEDGER_OPEN',
      `The ledger ${dbPath} could not be opened: ${(err as Error).message}`,
      { stateDir, file: dbPath },
      { cause: err },
    );
  }
}

/**
 * The ledger is customer data: owner-only whatever the umask. The file is created 0600 before SQLite
 * opens it (SQLite gives its -wal, -shm and -journal files the database's mode); files of an older
 * ledger are tightened too.
 */
function makePrivate(dbPath: string): void {
  try {
    fs.closeSync(fs.openSync(dbPath, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`]) {
    try {
      fs.chmodSync(file, 0o600);
    } catch {
      /* absent, or not ours to change (best effort; SQLite reports what matters) */
    }
  }
}

/** An existing ledger of the current schema, without the lock: read-only, or shared for short operator writes. */
function openExisting(
  dbPath: string,
  stateDir: string,
  readonly: boolean,
  timeout: number,
): Database.Database {
  if (!fs.existsSync(dbPath)) {
    throw new EdocError('EDOC_LEDGER_NOT_FOUND', `There is no ledger in ${stateDir} yet.`, {
      stateDir,
    });
  }
  const db = new Database(dbPath, { readonly, fileMustExist: true, timeout });
  if (!readonly) db.pragma('synchronous = FULL');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    db.close();
    throw new EdocError(
      'EDOC_LEDGER_MIGRATION',
      `The ledger has schema version ${version}; this program reads version ${SCHEMA_VERSION}. Start the daemon once to migrate it.`,
      { stateDir, version },
    );
  }
  return db;
}
