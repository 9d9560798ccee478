/**
 * `edoc-bridge ledger copy`: moves an installation's SQLite ledger into an empty PostgreSQL ledger, all
 * or nothing. The PostgreSQL schema is migrated first (the same code as `ledger migrate`); then, in ONE
 * transaction: its tables are locked against other writers, found empty (two ledgers are never
 * merged), filled table by table in foreign-key order (copy-rows.ts), read back and compared with
 * what was read — per table, row count and checksum — and the identity sequences are set past the
 * copied ids, before COMMIT. Any difference, any refused value, a lost connection: the transaction
 * rolls back and the PostgreSQL ledger stays empty.
 */
import { COMPANY_ID_PREFIX } from '../ledger/company-ids.js';
import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import { EdocError } from '../errors.js';
import type { LockInfo } from '../ledger/lock.js';
import { planCopy, quoteName } from './copy-plan.js';
import type { CopyTable } from './copy-plan.js';
import { checksumRows, copyRows } from './copy-rows.js';
import type { BatchLimits } from './copy-rows.js';
import { openCopySource } from './copy-source.js';
import type { SqlExecutor } from '../ledger/sql/executor.js';
import { migratePostgres } from '../ledger/sql/pg-migrations.js';
import { openPostgresExecutor } from '../ledger/sql/postgres.js';

export interface CopyOptions {
  /** The SQLite ledger file, or the state folder holding it. */
  from: string;
  /** The PostgreSQL ledger's URL (password from it, PGPASSWORD or the pgpass file). */
  to: string;
  /** Where PG* variables and HOME (for ~/.pgpass) come from. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** Copy the ledger of a running daemon as of one instant instead of refusing. @defaultValue false */
  forceSnapshot?: boolean;
  /** Recorded in schema_version and shown in pg_stat_activity. @defaultValue 'edoc-bridge' */
  program?: string;
  /** Rows per INSERT at most. @defaultValue 1000 */
  batchRows?: number;
  /** Bytes of text per INSERT at most. @defaultValue 4 MiB */
  batchBytes?: number;
  /** How long to wait for another session's locks on the ledger's tables. @defaultValue 10000 */
  lockTimeoutMs?: number;
  onProgress?: (progress: CopyProgress) => void;
}

export interface CopyProgress {
  phase: 'copy' | 'verify';
  table: string;
  /** Rows of every table done in this phase. */
  done: number;
  total: number;
}

export interface TableCopy {
  name: string;
  rows: number;
  /** The table's content checksum (table-checksum.ts), the same on both sides. */
  checksum: string;
}

export interface CopyReport {
  /** The SQLite ledger file. */
  from: string;
  /** `postgres://user@host:port/db`: never the password. */
  to: string;
  sqliteVersion: number;
  pgSchema: { from: number; to: number };
  tables: TableCopy[];
  rows: number;
  /** From opening the source to the commit. */
  seconds: number;
  /** With --force-snapshot: the daemon that was running (what it did after the snapshot is not in the copy). */
  runningDaemon: LockInfo | undefined;
}

/** SQLSTATE lock_not_available: lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

export async function copyLedger(options: CopyOptions): Promise<CopyReport> {
  const started = performance.now();
  const program = options.program ?? 'edoc-bridge';
  const limits: BatchLimits = {
    rows: options.batchRows ?? 1000,
    bytes: options.batchBytes ?? 4 * 1024 * 1024,
  };
  const source = openCopySource(options.from, options.forceSnapshot === true);
  try {
    const db = openPostgresExecutor(options.to, {
      env: options.env,
      maxConnections: 1,
      applicationName: `${program} ledger copy`,
    });
    try {
      const pgSchema = await migratePostgres(db, program);
      const tables = await db.transaction(async (tx) => {
        const plan = await planCopy(source.db, tx);
        await lockEmptyTarget(tx, plan, db.display, options.lockTimeoutMs ?? 10_000);
        return copyAndVerify(source.db, tx, plan, limits, options.onProgress);
      });
      const seconds = (performance.now() - started) / 1000;
      // fresh statistics for the planner before the first node queries a million new rows; not needed for correctness
      await db
        .exec(`ANALYZE ${tables.map((t) => quoteName(t.name)).join(', ')}`)
        .catch(() => undefined);
      return {
        from: source.file,
        to: db.display,
        sqliteVersion: source.version,
        pgSchema,
        tables,
        rows: tables.reduce((n, t) => n + t.rows, 0),
        seconds,
        runningDaemon: source.runningDaemon,
      };
    } finally {
      await db.close();
    }
  } finally {
    source.close();
  }
}

/** Locks the ledger's tables against other writers for the transaction and refuses rows already there. */
async function lockEmptyTarget(
  tx: SqlExecutor,
  plan: readonly CopyTable[],
  display: string,
  lockTimeoutMs: number,
): Promise<void> {
  await tx.exec(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
  try {
    // SHARE ROW EXCLUSIVE: conflicts with every writer and with itself, so a second copy waits here and then finds rows
    // the cluster's nodes too (when a node ever ran here): no node registers, starts or beats until the copy ended
    const cluster =
      (await tx.get<{ t: string | null }>("SELECT to_regclass('nodes')::text AS t"))?.t != null;
    await tx.exec(
      `LOCK TABLE ${[...plan.map((t) => quoteName(t.name)), ...(cluster ? ['nodes'] : [])].join(', ')} IN SHARE ROW EXCLUSIVE MODE`,
    );
    if (cluster) await refuseLiveNodes(tx, display);
  } catch (err) {
    if ((err as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw err;
    throw new EdocError(
      'EDOC_LEDGER_COPY_REFUSED',
      `Another session holds the tables of the PostgreSQL ledger ${display} ` +
        `(a node running on it, or another copy) for longer than ${lockTimeoutMs} ms: stop it and copy into an empty ledger`,
      { server: display },
    );
  }
  const held = new Map<string, number>();
  // a node that ran here before any file recorded the ids its companies' files would be taken under
  // (ledger/company-ids.ts): with no file in the ledger they describe nothing, and the copy replaces them
  const idKeys = `key LIKE '${COMPANY_ID_PREFIX}%'`;
  for (const table of plan) {
    const where = table.name === 'kv' ? ` WHERE NOT (${idKeys})` : '';
    const n =
      (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${quoteName(table.name)}${where}`))
        ?.n ?? 0;
    if (n > 0) held.set(table.name, n);
  }
  if (held.size > 0) {
    // what an operator recognises first: files and documents, then the rest
    const named = ['files', 'documents'].filter((t) => held.has(t));
    const rest = [...held.keys()].filter((t) => !named.includes(t));
    const counts = [...named, ...rest].map(
      (t) => `${held.get(t)} ${t === 'files' || t === 'documents' ? t : `${t} rows`}`,
    );
    throw new EdocError(
      'EDOC_LEDGER_COPY_REFUSED',
      `The PostgreSQL ledger ${display} is not empty: it holds ${counts.join(', ')}. ` +
        'ledger copy only fills an empty ledger, it never merges two: copy into a new database',
      { server: display, held: Object.fromEntries(held) },
    );
  }
  if (plan.some((t) => t.name === 'kv')) await tx.run(`DELETE FROM kv WHERE ${idKeys}`);
}

/**
 * A cluster running on the database (nodes beat, not stopped) has recovered its companies already: documents
 * copied under it would never be recovered (a `sending` one would stay so) and its files never claimed.
 * A node killed without a stop counts for two minutes after its last heartbeat (longer than any lease).
 */
async function refuseLiveNodes(tx: SqlExecutor, display: string): Promise<void> {
  const live = (
    await tx.all<{ name: string }>(`SELECT name FROM nodes WHERE stopped_at IS NULL
    AND heartbeat_at > now() - interval '2 minutes' ORDER BY name`)
  ).map((r) => r.name);
  if (live.length === 0) return;
  throw new EdocError(
    'EDOC_LEDGER_COPY_REFUSED',
    `Cluster nodes run on the PostgreSQL ledger ${display} (${live.slice(0, 5).join(', ')}` +
      `${live.length > 5 ? ', …' : ''}): stop them first (a node stopped without SIGTERM counts for 2 minutes after its last heartbeat); ` +
      'ledger copy only fills a ledger no node uses',
    { server: display, nodes: live.length },
  );
}

async function copyAndVerify(
  sqlite: Database.Database,
  tx: SqlExecutor,
  plan: readonly CopyTable[],
  limits: BatchLimits,
  onProgress: CopyOptions['onProgress'],
): Promise<TableCopy[]> {
  const counts = plan.map((t) =>
    Number(
      sqlite
        .prepare(`SELECT count(*) FROM ${quoteName(t.name)}`)
        .pluck()
        .get(),
    ),
  );
  const total = counts.reduce((a, b) => a + b, 0);
  const report =
    (phase: CopyProgress['phase'], table: string, before: number) =>
    (rows: number): void =>
      onProgress?.({ phase, table, done: before + rows, total });

  const copied: TableCopy[] = [];
  let before = 0;
  for (const table of plan) {
    const checksum = await copyRows(sqlite, tx, table, limits, report('copy', table.name, before));
    copied.push({ name: table.name, rows: checksum.rows, checksum: checksum.hex() });
    before += checksum.rows;
  }

  before = 0;
  const differences: string[] = [];
  for (const [i, table] of plan.entries()) {
    const back = await checksumRows(tx, table, report('verify', table.name, before));
    before += back.rows;
    const sent = copied[i];
    if (back.rows !== sent.rows)
      differences.push(`${table.name}: ${sent.rows} rows read, ${back.rows} in PostgreSQL`);
    else if (back.hex() !== sent.checksum)
      differences.push(
        `${table.name}: the checksums differ (${sent.checksum.slice(0, 12)}… read, ${back.hex().slice(0, 12)}… in PostgreSQL)`,
      );
  }
  if (differences.length > 0) {
    throw new EdocError(
      'EDOC_LEDGER_COPY_VERIFY',
      `The copy differs from the SQLite ledger, rolled back: ${differences.join('; ')}`,
      { differences },
    );
  }

  for (const table of plan) {
    for (const column of table.identity) {
      // the next id the ledger takes is past every copied one (an empty table starts at 1)
      await tx.get(
        `SELECT setval(pg_get_serial_sequence(?, ?), coalesce(max(${quoteName(column)}), 0) + 1, false) FROM ${quoteName(table.name)}`,
        [quoteName(table.name), column],
      );
    }
  }
  return copied;
}
