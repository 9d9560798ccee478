// What the ledger costs the database per document on the hot path (issue 13): statements and round trips
// per document for intake (recordFile, insertDocuments, finishReading), sending (claimDue, then the
// sender's commitSubmissions: this batch's `sending` marks with the previous batch's verdicts) and the
// report (finishFile, a snapshot streamed, markReported), counted by an executor that wraps the real one.
// The same logic on SQLite and on a throwaway PostgreSQL server (fsync off: round trips, not disk).
//   npm run build && node bench/pg-cost.mjs [--docs 5000] [--batch 50]
// Not part of `npm run bench`; docs/benchmarks.md has its figures.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { findPostgres, startServer } from '../scripts/pg-test-server.mjs';

const CODE = process.env.EDOC_BENCH_CODE ?? path.join(import.meta.dirname, '..');
const { Ledger } = await import(path.join(CODE, 'dist/ledger/ledger.js'));
const { openSqliteExecutor } = await import(path.join(CODE, 'dist/ledger/sql/sqlite.js'));
const { openPostgresExecutor } = await import(path.join(CODE, 'dist/ledger/sql/postgres.js'));
const { migratePostgres } = await import(path.join(CODE, 'dist/ledger/sql/pg-migrations.js'));
const { migrate } = await import(path.join(CODE, 'dist/ledger/migrations.js'));

const arg = (name, fallback) => Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) || fallback;
const N = arg('docs', 5_000);
const BATCH = arg('batch', 50);

/** Counts statements and round trips (a transaction adds BEGIN and COMMIT; a savepoint two more). */
class Counting {
  constructor(inner, counts, inTx = false) {
    this.inner = inner;
    this.counts = counts;
    this.inTx = inTx;
    this.dialect = inner.dialect;
  }
  count() { this.counts.statements++; this.counts.roundTrips++; }
  all(sql, params) { this.count(); return this.inner.all(sql, params); }
  get(sql, params) { this.count(); return this.inner.get(sql, params); }
  run(sql, params) { this.count(); return this.inner.run(sql, params); }
  exec(sql) { this.count(); return this.inner.exec(sql); }
  transaction(fn) {
    this.counts.transactions++;
    this.counts.roundTrips += 2;
    return this.inner.transaction((tx) => fn(new Counting(tx, this.counts, true)));
  }
  read(fn) { return this.inTx ? fn(this) : this.transaction(fn); }
  async readView() {
    this.counts.roundTrips += 2;
    const view = await this.inner.readView();
    const counts = this.counts;
    return {
      dialect: view.dialect,
      all: (s, p) => { counts.statements++; counts.roundTrips++; return view.all(s, p); },
      get: (s, p) => { counts.statements++; counts.roundTrips++; return view.get(s, p); },
      // a cursor: DECLARE, then one FETCH per 500 rows (SQLite steps a statement: one "statement")
      iterate: (s, p) => { counts.statements++; counts.roundTrips += 1 + Math.ceil(N / 500); return view.iterate(s, p); },
      close: () => view.close(),
    };
  }
  close() { return this.inner.close(); }
}

const zero = () => ({ statements: 0, roundTrips: 0, transactions: 0 });

async function measure(label, executor) {
  const counts = zero();
  const ledger = new Ledger(new Counting(executor, counts), false);
  const phases = {};
  const phase = async (name, fn) => {
    const before = { ...counts };
    const t0 = performance.now();
    await fn();
    const ms = performance.now() - t0;
    phases[name] = { statements: counts.statements - before.statements, roundTrips: counts.roundTrips - before.roundTrips,
      transactions: counts.transactions - before.transactions, ms };
  };
  let fileId;
  await phase('intake', async () => {
    ({ fileId } = await ledger.recordFile({ path: '/inbox/invoice/bench.json', name: 'bench.json', size: 1, sha256: `bench-${label}`,
      kind: 'invoice', company: 'main', now: 1 }));
    await ledger.insertDocuments(fileId, Array.from({ length: N }, (_, i) => ({ index: i, source: { lines: [i + 1] },
      number: `SETP/${990_000_000 + i}`, ownNumber: true, request: { n: i }, raw: `{"n":${i}}` })), 1);
    await ledger.finishReading(fileId, 1);
  });
  await phase('send', async () => {
    let previous = [];
    for (;;) {
      const due = await ledger.claimDue('main', 2, BATCH);
      if (due.length === 0) break;
      await ledger.commitSubmissions(due.map((d) => d.id), previous, 3);
      previous = due.map((d) => ({ id: d.id, state: 'accepted', resultCode: '100', httpStatus: 200, response: { ok: true } }));
    }
    await ledger.commitSubmissions([], previous, 4);
  });
  await phase('report', async () => {
    await ledger.finishFile(fileId, 5);
    const snap = await ledger.snapshot();
    let n = 0;
    for await (const d of snap.iterateFileDocuments(fileId)) if (d.state === 'accepted') n++;
    await snap.close();
    if (n !== N) throw new Error(`report saw ${n} accepted of ${N}`);
    await ledger.markReported(fileId, 'final');
  });
  await ledger.close();
  return phases;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-bench-pgcost-'));
const results = {};
try {
  const file = path.join(dir, 'ledger.sqlite');
  const sqlite = openSqliteExecutor(file);
  migrate(sqlite.db);
  results.sqlite = await measure('sqlite', sqlite);
  const found = findPostgres();
  if (found.bindir) {
    const server = await startServer(found.bindir, path.join(dir, 'pg'));
    const { info } = server;
    const admin = new pg.Client({ host: info.socketDir, port: info.port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE bench OWNER ${info.user}`);
    await admin.end();
    const pgdb = openPostgresExecutor(`postgres://${info.user}:${encodeURIComponent(info.password)}@${info.host}:${info.port}/bench`);
    await migratePostgres(pgdb);
    results.postgres = await measure('postgres', pgdb);
    await server.stop();
  } else console.log(`PostgreSQL: ${found.reason}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`pg-cost — ${N} documents, batches of ${BATCH}; node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, `
  + `load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (const [backend, phases] of Object.entries(results)) {
  for (const [name, p] of Object.entries(phases)) {
    console.log(`  ${backend.padEnd(8)} ${name.padEnd(6)} statements/doc ${(p.statements / N).toFixed(2).padStart(5)}  `
      + `round trips/doc ${(p.roundTrips / N).toFixed(2).padStart(5)}  transactions ${String(p.transactions).padStart(5)}  `
      + `${Math.round(N / (p.ms / 1000)).toLocaleString('en').padStart(7)} docs/s`);
  }
}
