// The operator console with 1,000,000 documents in the ledger: the time of each page over real HTTP
// (the listener of http/server.ts, in this process, Bearer token), and what ledger migration 7
// (documents.customer and its index, files(name)) costs on a ledger of that size.
// The ledger is bench/scenarios/startup.mjs's (2,000 files of 500 invoices, a few failed and
// in-doubt); every document is then given one of 5,000 customer ids (200 documents each).
//
//   npm run build && node bench/console-pages.mjs [documents] [requests per page]   (default 1000000, 20)
/* global fetch */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { buildLedger } from './scenarios/startup.mjs';
import { dist, median, round } from './lib/util.mjs';

const total = Number(process.argv[2] ?? 1_000_000);
const perPage = Number(process.argv[3] ?? 20);
const TOKEN = 'bench-console-token-0123456789';

function p95(values) {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.ceil(v.length * 0.95) - 1)];
}

async function main() {
  const { Ledger } = await dist('ledger/ledger.js');
  const { startOperatorServer } = await dist('http/server.js');
  const { consoleRoutes } = await dist('http/console/routes.js');
  const { consoleActions } = await dist('daemon/operator-actions.js');
  const { createLogger } = await dist('log/logger.js');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-console-'));
  const state = path.join(dir, 'state');
  try {
    let t = performance.now();
    await buildLedger(state, total);
    console.log(
      `ledger of ${total} documents built in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    // migration 7 on this ledger: undo it, then time the open that applies it
    const db = new Database(path.join(state, 'ledger.sqlite'));
    db.exec(
      'DROP INDEX documents_customer; DROP INDEX files_name; DROP INDEX received_at; ALTER TABLE documents DROP COLUMN customer; PRAGMA user_version = 6',
    );
    db.close();
    t = performance.now();
    Ledger.open(state).close();
    const migrationMs = performance.now() - t;
    console.log(
      `migration 7 (add documents.customer, its partial index, files(name), received(company, at)): ${round(migrationMs, 0)} ms`,
    );

    const fill = new Database(path.join(state, 'ledger.sqlite'));
    fill.pragma('synchronous = OFF');
    t = performance.now();
    fill.exec(`UPDATE documents SET customer = '9' || printf('%08d', id % 5000)`);
    console.log(
      `customer ids set on every document in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    const ids = fill.prepare(`SELECT min(id) AS first, max(id) AS last FROM documents`).get();
    const failedAfter =
      fill
        .prepare(`SELECT id FROM documents WHERE state = 'failed' ORDER BY id LIMIT 1 OFFSET 100`)
        .pluck()
        .get() ?? 0;
    t = performance.now();
    const scanned = fill
      .prepare(`SELECT count(*) FROM documents WHERE key LIKE ?`)
      .pluck()
      .get(`%/SETP/${990_000_001 + Math.floor(total / 2)}`);
    const scanMs = performance.now() - t;
    fill.close();
    console.log(
      `for comparison, a suffix search on the key without the console's exact lookups: ${round(scanMs, 0)} ms (${scanned} found)`,
    );

    const ledger = Ledger.open(state);
    const logger = createLogger({
      file: path.join(dir, 'bench.log'),
      secrets: [TOKEN],
      level: 'warn',
    });
    const companies = () => [
      {
        alias: 'main',
        queued: 0,
        inFlight: 0,
        concurrency: 4,
        requestsPerSecond: 10,
        currentLimit: 10,
        paused: false,
        unreachable: false,
        storageBlocked: false,
      },
    ];
    const server = await startOperatorServer({
      listen: '127.0.0.1:0',
      token: TOKEN,
      logger,
      routes: consoleRoutes({
        ledger,
        companies,
        actions: consoleActions(ledger, { wake: () => {}, report: async () => ({}) }),
        receivedDir: (company) => path.join(dir, 'received', company),
      }),
    });
    const middleFile = Math.floor(total / 500 / 2);
    const number = 990_000_001 + Math.floor(total / 2); // the builder numbers its invoices from 990000001
    const pages = [
      ['companies', '/'],
      ['files, newest', '/files'],
      ['files done, 10th page', `/files?state=done&before=${Math.max(1, total / 500 - 500)}`],
      ["a file's documents, first page", `/files/${middleFile}`],
      ["a file's documents, last page", `/files/${middleFile}?after=449`],
      ['failed documents, first page', '/attention?state=failed'],
      ['failed documents, later page', `/attention?state=failed&after=${failedAfter}`],
      ['in-doubt documents', '/attention?state=in-doubt'],
      ['search: file name', `/search?q=export-${middleFile}&by=file`],
      ['search: number prefix/number', `/search?q=SETP%2F${number}&by=number`],
      ['search: number PREFIXNUMBER', `/search?q=SETP${number}&by=number`],
      ['search: customer id (200 documents, first 50)', '/search?q=900001234&by=customer'],
      ['search: any (file, number, then customer)', '/search?q=900001234'],
      ["a document's history", `/documents/${Math.floor((ids.first + ids.last) / 2)}`],
      ['received documents', '/received'],
    ];
    const rows = [];
    for (const [name, url] of pages) {
      const times = [];
      let status = 0;
      let bytes = 0;
      for (let i = 0; i < perPage + 2; i++) {
        const start = performance.now();
        const res = await fetch(`${server.url}${url}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        const text = await res.text();
        if (i >= 2) times.push(performance.now() - start); // the first two warm the statement cache
        status = res.status;
        bytes = Buffer.byteLength(text);
      }
      rows.push({
        page: name,
        url,
        status,
        kb: round(bytes / 1024, 1),
        medianMs: round(median(times), 1),
        p95Ms: round(p95(times), 1),
      });
    }
    console.table(rows);
    console.log(
      JSON.stringify({
        documents: total,
        migrationMs: round(migrationMs, 0),
        suffixScanMs: round(scanMs, 0),
        pages: rows,
      }),
    );
    await server.close();
    ledger.close();
    await logger.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
