/**
 * One ledger suite, two backends: `describeBackends(name, (b) => …)` runs its body once on SQLite (a
 * temp state folder) and once on PostgreSQL (a fresh database of the test server per ledger), so the
 * port's behaviour is checked the same way on both. The PostgreSQL half skips, with the harness's one
 * line of reason, only on a machine without PostgreSQL.
 */
import { afterAll, describe } from 'vitest';
import { Ledger, type LedgerOpenOptions } from '../../src/ledger/ledger.js';
import { openPostgresLedger } from '../../src/ledger/open.js';
import { createDatabase, describePg } from '../helpers/postgres.js';
import { tempDir } from './helpers.js';

export type BackendName = 'sqlite' | 'postgres';

export interface LedgerBackend {
  readonly name: BackendName;
  /** A fresh, empty ledger (the daemon's open: migrated, and for SQLite locked). */
  open(options?: LedgerOpenOptions): Promise<Ledger>;
  /** Another open of the store `ledger` is on: a restart after close, or (shared, readOnly) an operator command beside it. */
  reopen(ledger: Ledger, options?: LedgerOpenOptions): Promise<Ledger>;
  /** A new, empty store: a state folder, or a database's URL (for a child process: holdLedger). */
  place(): Promise<string>;
  /** Opens the ledger at a place. */
  openAt(place: string, options?: LedgerOpenOptions): Promise<Ledger>;
}

export const BACKENDS: readonly BackendName[] = ['sqlite', 'postgres'];

export function describeBackends(name: string, body: (backend: LedgerBackend) => void): void {
  for (const backend of BACKENDS) {
    (backend === 'postgres' ? describePg : describe)(`${name} [${backend}]`, () => {
      body(backend === 'postgres' ? postgresBackend() : sqliteBackend());
    });
  }
}

/** The SQLite backend alone (inside a describe). */
export function sqliteBackend(): LedgerBackend {
  const where = new WeakMap<Ledger, string>();
  const opened = (dir: string, options?: LedgerOpenOptions): Ledger => {
    const ledger = Ledger.open(dir, options);
    where.set(ledger, dir);
    return ledger;
  };
  return {
    name: 'sqlite',
    open: async (options) => opened(tempDir(), options),
    reopen: async (ledger, options) => opened(where.get(ledger)!, options),
    place: async () => tempDir(),
    openAt: async (dir, options) => opened(dir, options),
  };
}

/** The PostgreSQL backend alone (inside a describePg: its databases are dropped after the block). */
export function postgresBackend(): LedgerBackend {
  const where = new WeakMap<Ledger, string>();
  const ledgers: Ledger[] = [];
  const databases: { drop(): Promise<void> }[] = [];
  const opened = async (url: string, options?: LedgerOpenOptions): Promise<Ledger> => {
    const ledger = await openPostgresLedger(url, { ...options, maxConnections: 4 });
    where.set(ledger, url);
    ledgers.push(ledger);
    return ledger;
  };
  afterAll(async () => {
    for (const l of ledgers) await l.close();
    for (const d of databases) await d.drop();
  }, 60_000);
  const place = async (): Promise<string> => {
    const db = await createDatabase();
    databases.push(db);
    return db.url;
  };
  return {
    name: 'postgres',
    open: async (options) => opened(await place(), options),
    reopen: (ledger, options) => opened(where.get(ledger)!, options),
    place,
    openAt: opened,
  };
}
