// What the SQL port (src/ledger/sql) costs per statement, beside better-sqlite3 called directly, and what a
// statement costs on the throwaway PostgreSQL server (one round trip each, over TCP on 127.0.0.1); also the
// same inserts through runMany, 1,000 rows a call.
//   npm run build && node bench/sql-port.mjs [--n 20000]
// Not part of `npm run bench` (issue 13's figures will go there once the ledger runs on the port).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { benchDatabase, startBenchPostgres } from './lib/postgres.mjs';
import { openSqliteExecutor } from '../dist/ledger/sql/sqlite.js';
import { openPostgresExecutor } from '../dist/ledger/sql/postgres.js';

const n = Number(process.argv[process.argv.indexOf('--n') + 1]) || 20_000;
const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-bench-sql-'));
const rate = (count, ms) =>
  `${Math.round(count / (ms / 1000)).toLocaleString('en')}/s (${((ms * 1000) / count).toFixed(1)} µs each)`;
const time = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const rows = [];

async function measure(label, db, raw) {
  await db.exec('CREATE TABLE t (id BIGINT PRIMARY KEY, v TEXT NOT NULL)');
  const insert = await time(() =>
    db.transaction(async (tx) => {
      for (let i = 1; i <= n; i++)
        await tx.run('INSERT INTO t(id, v) VALUES (?, ?)', [i, `value ${i}`]);
    }),
  );
  const get = await time(async () => {
    for (let i = 1; i <= n; i++) await db.get('SELECT v FROM t WHERE id = ?', [i]);
  });
  rows.push([
    label,
    `insert ×${n} in one transaction: ${rate(n, insert)}`,
    `get by id ×${n}: ${rate(n, get)}`,
  ]);
  // the same inserts as batches of 1,000 rows, one runMany call each (the intake's form on SQLite)
  await db.exec('CREATE TABLE m (id BIGINT PRIMARY KEY, v TEXT NOT NULL)');
  const many = await time(() =>
    db.transaction(async (tx) => {
      for (let i = 1; i <= n; i += 1000) {
        await tx.runMany(
          'INSERT INTO m(id, v) VALUES (?, ?)',
          Array.from({ length: Math.min(1000, n - i + 1) }, (_, k) => [i + k, `value ${i + k}`]),
        );
      }
    }),
  );
  rows.push([label, `insert ×${n} in one transaction, runMany of 1,000: ${rate(n, many)}`, '']);
  if (raw) {
    raw.exec('CREATE TABLE r (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const ins = raw.prepare('INSERT INTO r(id, v) VALUES (?, ?)');
    const rawInsert = await time(() =>
      raw
        .transaction(() => {
          for (let i = 1; i <= n; i++) ins.run(i, `value ${i}`);
        })
        .immediate(),
    );
    const sel = raw.prepare('SELECT v FROM r WHERE id = ?');
    const rawGet = await time(() => {
      for (let i = 1; i <= n; i++) sel.get(i);
    });
    rows.push([
      'better-sqlite3 directly',
      `insert ×${n} in one transaction: ${rate(n, rawInsert)}`,
      `get by id ×${n}: ${rate(n, rawGet)}`,
    ]);
  }
}

try {
  const sqlite = openSqliteExecutor(path.join(dir, 'bench.sqlite'));
  await measure('SqliteExecutor', sqlite, sqlite.db);
  await sqlite.close();
  const pgs = await startBenchPostgres(dir);
  if (pgs.skipped) rows.push(['PostgreSQL', pgs.skipped, '']);
  else {
    try {
      const db = await benchDatabase(pgs, 'bench');
      const pgdb = openPostgresExecutor(db.url, { env: { ...process.env, ...db.env } });
      await measure('PostgresExecutor (fsync off)', pgdb);
      await pgdb.close();
    } finally {
      await pgs.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `sql-port bench — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const r of rows) console.log(`  ${r.join(' | ')}`);
