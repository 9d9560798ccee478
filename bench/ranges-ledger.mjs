// Cost of the ledger reads the range watch and the alerts make, on a ledger of N documents of one
// prefix (default 1,000,000, all pending so the partial indexes hold them all): the highest number
// used within a range (every minute and after acceptances, per range), and the in-doubt / unsent
// counts (every 30 s; unsent only near the Colombian day's end). Prints each query's plan and its
// mean time over 10 runs.
//
//   npm run build && node bench/ranges-ledger.mjs [documents]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { Ledger } = await import(join(ROOT, 'dist/ledger/ledger.js'));
const { RANGE_KINDS } = await import(join(ROOT, 'dist/ranges/range-math.js'));

const N = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'edoc-ranges-bench-'));
try {
  const ledger = Ledger.open(dir);
  const { fileId } = ledger.recordFile({
    path: '/x/a.json',
    name: 'a.json',
    size: 1,
    sha256: 'x',
    kind: 'invoice',
    company: 'main',
    now: 1,
  });
  let t = performance.now();
  let batch = [];
  for (let i = 0; i < N; i++) {
    batch.push({
      index: i,
      source: { lines: [i + 1] },
      number: `SETP/${990_000_000 + i}`,
      ownNumber: true,
      request: {},
      raw: '{}',
    });
    if (batch.length === 5_000) {
      ledger.insertDocuments(fileId, batch);
      batch = [];
    }
  }
  if (batch.length > 0) ledger.insertDocuments(fileId, batch);
  ledger.finishReading(fileId);
  console.log(`${N} documents stored in ${Math.round(performance.now() - t)} ms`);
  const plan = (sql, ...args) =>
    ledger.db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...args)
      .map((p) => p.detail)
      .join('; ');
  console.log(
    'plan, highest used:',
    plan(
      `SELECT key FROM documents WHERE key >= ? AND key <= ? AND length(key) = ? AND state <> 'invalid' ORDER BY key DESC LIMIT 1`,
      'a',
      'b',
      3,
    ),
  );
  console.log(
    'plan, in doubt:',
    plan(
      `SELECT company, count(*) AS n FROM documents WHERE state IN ('in-doubt','failed') AND state = 'in-doubt' GROUP BY company`,
    ),
  );
  console.log(
    'plan, pending:',
    plan(`SELECT company, count(*) AS n FROM documents WHERE state = 'pending' GROUP BY company`),
  );
  const cases = [
    [
      'highestNumberUsed, SETP 990000000–995000000',
      () => ledger.highestNumberUsed('main', RANGE_KINDS, 'SETP', 990_000_000, 995_000_000),
    ],
    [
      'highestNumberUsed, SETP 1–999999 (none used there)',
      () => ledger.highestNumberUsed('main', RANGE_KINDS, 'SETP', 1, 999_999),
    ],
    ['openCounts(false): in doubt only (every 30 s)', () => ledger.openCounts(false)],
    ["openCounts(true): with unsent (near the day's end)", () => ledger.openCounts(true)],
  ];
  for (const [label, fn] of cases) {
    fn();
    t = performance.now();
    let result;
    for (let i = 0; i < 10; i++) result = fn();
    console.log(
      `${label}: ${((performance.now() - t) / 10).toFixed(2)} ms -> ${JSON.stringify(result)}`,
    );
  }
  ledger.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
