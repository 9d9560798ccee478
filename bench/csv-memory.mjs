// Peak memory of the CSV reader + mapping engine for a 10,000-row and a
// 1,000,000-row sales export, side by side. Each size runs in its own child
// process and reports process.resourceUsage().maxRSS.
//
//   npm run build && node bench/csv-memory.mjs [rows ...]
//
// Files are generated in os.tmpdir() by lib/sales-csv.mjs (Windows-1252, `;`, CRLF, 3 lines per
// document, every 50th document with a row interleaved further down) and removed afterwards.
// `npm run bench` runs the same reader measurement beside the daemon's (scenarios/memory.mjs).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSalesCsv } from './lib/sales-csv.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Peak RSS of the reader + mapping alone over `file`, in a fresh child process. */
export function readerPeak(file) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out);
}

async function child(file) {
  const { loadMapping } = await import(
    join(process.env.EDOC_BENCH_CODE ?? root, 'dist/map/load-mapping.js')
  );
  const { openCsvSource } = await import(
    join(process.env.EDOC_BENCH_CODE ?? root, 'dist/read/csv-source.js')
  );
  const mapping = await loadMapping(join(root, 'config/mappings/sales.csv.yaml'));
  const started = Date.now();
  const source = await openCsvSource(file, mapping, {
    kind: 'invoice',
    company: { alias: 'main', nit: '900123456' },
  });
  let documents = 0;
  let invalid = 0;
  let rows = 0;
  for await (const d of source.documents) {
    documents += 1;
    rows += d.source.rows.length;
    if (d.request === undefined) invalid += 1;
  }
  process.stdout.write(
    JSON.stringify({
      documents,
      invalid,
      rows,
      ms: Date.now() - started,
      maxRssKb: process.resourceUsage().maxRSS,
    }),
  );
}

async function main() {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const rowsList = sizes.length > 0 ? sizes : [10_000, 1_000_000];
  const dir = await mkdtemp(join(tmpdir(), 'edoc-csv-bench-'));
  const results = [];
  try {
    for (const rows of rowsList) {
      const file = join(dir, `sales-${rows}.csv`);
      await writeSalesCsv(file, rows);
      const bytes = (await stat(file)).size;
      results.push({ rows, mb: bytes / 1e6, ...readerPeak(file) });
      await rm(file);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log('rows        file MB   documents   invalid   seconds   peak RSS MB');
  for (const r of results) {
    console.log(
      `${String(r.rows).padStart(9)} ${r.mb.toFixed(1).padStart(9)} ${String(r.documents).padStart(11)} ${String(r.invalid).padStart(9)} ${(r.ms / 1000).toFixed(1).padStart(9)} ${(r.maxRssKb / 1024).toFixed(1).padStart(13)}`,
    );
  }
  if (results.length >= 2) {
    const ratio = results.at(-1).maxRssKb / results[0].maxRssKb;
    console.log(
      `peak RSS ratio ${results.at(-1).rows} / ${results[0].rows} rows: ${ratio.toFixed(2)} (target <= 1.5, and < 200 MB)`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--child') await child(process.argv[3]);
  else await main();
}
