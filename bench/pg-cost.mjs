// What the ledger costs the database per document on the hot path (issue 13): statements and round trips
// per document for intake (recordFile, insertDocuments, finishReading), sending (claimDue, then the
// sender's commitSubmissions: this batch's `sending` marks with the previous batch's verdicts) and the
// report (finishFile, a snapshot streamed, markReported), counted by an executor that wraps the real one.
// The same logic on SQLite and on a throwaway PostgreSQL server (fsync off: round trips, not disk). CPU is
// this process's (process.cpuUsage: on SQLite the database's work included, on PostgreSQL not the server's).
//   npm run build && node bench/pg-cost.mjs [--docs 5000] [--batch 50]
//   EDOC_BENCH_CODE=/tmp/other-build node bench/pg-cost.mjs …   (another build: bench/private-build.sh)
// Not part of `npm run bench`; docs/benchmarks.md has its figures.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CountingExecutor, zeroCounts } from './lib/counting-executor.mjs';
import { benchDatabase, startBenchPostgres } from './lib/postgres.mjs';

const CODE = process.env.EDOC_BENCH_CODE ?? path.join(import.meta.dirname, '..');
const { Ledger } = await import(path.join(CODE, 'dist/ledger/ledger.js'));
const { openSqliteExecutor } = await import(path.join(CODE, 'dist/ledger/sql/sqlite.js'));
const { openPostgresExecutor } = await import(path.join(CODE, 'dist/ledger/sql/postgres.js'));
const { migratePostgres } = await import(path.join(CODE, 'dist/ledger/sql/pg-migrations.js'));
const { migrate } = await import(path.join(CODE, 'dist/ledger/migrations.js'));

const arg = (name, fallback) =>
  Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) || fallback;
const N = arg('docs', 5_000);
const BATCH = arg('batch', 50);

async function measure(label, executor) {
  const counts = zeroCounts();
  const ledger = new Ledger(new CountingExecutor(executor, counts), false);
  const phases = {};
  const phase = async (name, fn) => {
    const before = { ...counts };
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await fn();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    phases[name] = {
      statements: counts.statements - before.statements,
      roundTrips: counts.roundTrips - before.roundTrips,
      transactions: counts.transactions - before.transactions,
      ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  };
  let fileId;
  await phase('intake', async () => {
    ({ fileId } = await ledger.recordFile({
      path: '/inbox/invoice/bench.json',
      name: 'bench.json',
      size: 1,
      sha256: `bench-${label}`,
      kind: 'invoice',
      company: 'main',
      now: 1,
    }));
    await ledger.insertDocuments(
      fileId,
      Array.from({ length: N }, (_, i) => ({
        index: i,
        source: { lines: [i + 1] },
        number: `SETP/${990_000_000 + i}`,
        ownNumber: true,
        request: { n: i },
        raw: `{"n":${i}}`,
      })),
      1,
    );
    await ledger.finishReading(fileId, 1);
  });
  await phase('send', async () => {
    let previous = [];
    for (;;) {
      const due = await ledger.claimDue('main', 2, BATCH);
      if (due.length === 0) break;
      await ledger.commitSubmissions(
        due.map((d) => d.id),
        previous,
        3,
      );
      previous = due.map((d) => ({
        id: d.id,
        state: 'accepted',
        resultCode: '100',
        httpStatus: 200,
        response: { ok: true },
      }));
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
  const pgs = await startBenchPostgres(dir);
  if (pgs.skipped) console.log(`PostgreSQL: ${pgs.skipped}`);
  else {
    try {
      const db = await benchDatabase(pgs, 'bench');
      const pgdb = openPostgresExecutor(db.url, { env: { ...process.env, ...db.env } });
      await migratePostgres(pgdb);
      results.postgres = await measure('postgres', pgdb);
    } finally {
      await pgs.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `pg-cost — ${N} documents, batches of ${BATCH}; node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, ` +
    `load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
for (const [backend, phases] of Object.entries(results)) {
  for (const [name, p] of Object.entries(phases)) {
    console.log(
      `  ${backend.padEnd(8)} ${name.padEnd(6)} statements/doc ${(p.statements / N).toFixed(2).padStart(5)}  ` +
        `round trips/doc ${(p.roundTrips / N).toFixed(2).padStart(5)}  transactions ${String(p.transactions).padStart(5)}  ` +
        `${Math.round(N / (p.ms / 1000))
          .toLocaleString('en')
          .padStart(7)} docs/s  CPU ${((p.cpuMs * 1000) / N).toFixed(1).padStart(5)} µs/doc`,
    );
  }
}
