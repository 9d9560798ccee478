// The cost of GET /metrics with 1,000,000 documents in the ledger (issue 14):
//   npx tsc -p tsconfig.build.json && node bench/metrics-cost.mjs [DOCUMENTS] [SCRAPES] [PER_FILE]
// Builds the ledger of the startup scenario (files of PER_FILE documents, 500 by default: 2,000 files; bench/scenarios/startup.mjs),
// opens it as the daemon does, starts the operator listener with the metrics route, and times SCRAPES
// scrapes over real HTTP with the Bearer token (after one warm-up), plus the ledger read alone.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildLedger } from './scenarios/startup.mjs';
import { dist, median, round } from './lib/util.mjs';

const total = Number(process.argv[2] ?? 1_000_000);
const scrapes = Number(process.argv[3] ?? 20);
const perFile = Number(process.argv[4] ?? 500);
const TOKEN = 'bench-token-0123456789abcdef';

const { Ledger } = await dist('ledger/ledger.js');
const { createOperatorMetrics } = await dist('http/metrics.js');
const { startOperatorServer } = await dist('http/server.js');
const { createLogger } = await dist('log/logger.js');

const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-metrics-'));
try {
  const t = Date.now();
  await buildLedger(path.join(dir, 'state'), total, perFile);
  console.log(
    `ledger of ${total} documents in ${total / perFile} files built in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );
  const ledger = Ledger.open(path.join(dir, 'state'));
  const logger = createLogger({ file: path.join(dir, 'bench.log'), level: 'warn' });
  const metrics = createOperatorMetrics({
    counts: () => ledger.operatorCounts(),
    companies: () => [{ alias: 'main', id: 1001 }],
    observe: () => () => undefined,
  });
  const server = await startOperatorServer({
    listen: '127.0.0.1:0',
    token: TOKEN,
    routes: [metrics.route],
    logger,
  });
  const ledgerMs = [];
  const scrapeMs = [];
  let bytes = 0;
  try {
    for (let i = 0; i <= scrapes; i++) {
      const a = performance.now();
      ledger.operatorCounts();
      const b = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 300)); // past the 250 ms reuse of one ledger read
      const c = performance.now();
      const res = await request(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const text = await res.body.text();
      const d = performance.now();
      if (res.statusCode !== 200) throw new Error(`scrape answered ${res.statusCode}`);
      bytes = text.length;
      if (i > 0) {
        ledgerMs.push(b - a);
        scrapeMs.push(d - c);
      }
      if (i === 0)
        console.log(
          text
            .split('\n')
            .filter((l) => l.startsWith('edoc_documents_total'))
            .join('\n'),
        );
    }
  } finally {
    await server.close();
    metrics.close();
    ledger.close();
    await logger.close();
  }
  // each of the ledger's three queries alone (ledger/operator-counts.ts), on a read-only connection
  const db = new Database(path.join(dir, 'state', 'ledger.sqlite'), { readonly: true });
  const queries = {
    documents: `SELECT f.company, f.kind, c.state, sum(c.n) AS n FROM file_counts c JOIN files f ON f.id = c.file_id GROUP BY f.company, f.kind, c.state`,
    files: `SELECT kind, CASE WHEN duplicate_of IS NOT NULL THEN 'duplicate' ELSE state END AS outcome, count(*) AS n FROM files GROUP BY kind, outcome`,
    received: 'SELECT company, count(*) AS n FROM received GROUP BY company',
  };
  const perQueryMs = {};
  for (const [name, sql] of Object.entries(queries)) {
    const statement = db.prepare(sql);
    const times = [];
    for (let i = 0; i < 5; i++) {
      const a = performance.now();
      statement.all();
      times.push(performance.now() - a);
    }
    perQueryMs[name] = round(median(times), 1);
  }
  db.close();
  console.log(
    JSON.stringify({
      perQueryMs,
      documents: total,
      files: total / perFile,
      scrapes,
      bytes,
      ledgerCountsMs: { median: round(median(ledgerMs), 1), max: round(Math.max(...ledgerMs), 1) },
      scrapeMs: { median: round(median(scrapeMs), 1), max: round(Math.max(...scrapeMs), 1) },
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
