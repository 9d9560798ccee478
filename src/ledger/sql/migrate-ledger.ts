/**
 * `edoc-bridge ledger migrate`: brings the configured ledger's schema up to date and says from which
 * version to which. PostgreSQL when a URL is given (under the advisory lock, so it is safe beside running
 * nodes), else the SQLite ledger of the state folder (under the folder's lock, as the daemon opens it:
 * a running daemon has it, and migrated it when it started).
 */
import fs from 'node:fs';
import path from 'node:path';
import { acquireLock, releaseLock } from '../lock.js';
import { migrate } from '../migrations.js';
import { migratePostgres } from './pg-migrations.js';
import { openPostgresExecutor } from './postgres.js';
import { openSqliteExecutor } from './sqlite.js';

/** The SQLite ledger's file name in the state folder (ledger/ledger.ts LEDGER_FILE). */
const SQLITE_FILE = 'ledger.sqlite';

export interface LedgerTarget {
  /** ledger.url: the PostgreSQL ledger. */
  url?: string;
  /** paths.state: the SQLite ledger, when there is no url. */
  stateDir: string;
  env?: NodeJS.ProcessEnv;
}

export interface MigrationReport {
  backend: 'sqlite' | 'postgres';
  /** The database file, or the server as `postgres://user@host:port/db` (never the password). */
  where: string;
  from: number;
  to: number;
}

export async function migrateLedger(
  target: LedgerTarget,
  program = 'edoc-bridge',
): Promise<MigrationReport> {
  if (target.url !== undefined) {
    const db = openPostgresExecutor(target.url, {
      env: target.env,
      maxConnections: 1,
      applicationName: `${program} ledger migrate`,
    });
    try {
      return { backend: 'postgres', where: db.display, ...(await migratePostgres(db, program)) };
    } finally {
      await db.close();
    }
  }
  const stateDir = path.resolve(target.stateDir);
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const lock = acquireLock(stateDir);
  try {
    const file = path.join(stateDir, SQLITE_FILE);
    const db = openSqliteExecutor(file);
    try {
      return { backend: 'sqlite', where: file, ...migrate(db.db) };
    } finally {
      await db.close();
    }
  } finally {
    releaseLock(lock);
  }
}
