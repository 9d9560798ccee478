// The ledger's share of the many-companies burst, alone: the 200 files of 40 invoices each (the companies
// scenario's, read beforehand by the real reader, `readDocumentBatches`) stored as the intake stores them —
// recorded, their documents inserted, their read finished — 32 files at a time (the intake's INTAKES), on a
// fresh SQLite ledger; no reading, no HTTP, no reports. What it measures is a floor: no company can send
// before its file is stored, so the last company starts no earlier than this after the first, and the
// scenario's run lasts at least this plus one company's 40 documents at R = 10 (3.9–4.0 s).
//   as is       the ledger as it is (synchronous FULL: an fsync per group commit, on the main thread)
//   no fsync    synchronous NORMAL: what the commits' fsyncs take of it
// Figures per run: wall ms of the burst, the main thread's busy ms (event-loop utilisation: a COMMIT's
// fsync counts), the ledger's COMMITs, and the bound it puts on the scenario (8,000 documents over the
// limit's 2,000/s: 4.0 s) as daemon ÷ limit ≤ 4.0 / (4.0 + wall).
//   node bench/burst-ledger.mjs [COMPANIES] [RUNS]        (EDOC_BENCH_CODE selects the build)
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchCompanies } from './lib/cluster.mjs';
import { companyInvoiceLines } from './lib/documents.mjs';
import { colombiaToday, dist, loadNow, median, round } from './lib/util.mjs';

const [companiesText, runsText] = process.argv.slice(2);
const n = Number(companiesText ?? 200);
const runs = Number(runsText ?? 3);
const PER_COMPANY = 40;
const INTAKES = 32;
const { Ledger } = await dist('ledger/ledger.js');
const { readDocumentBatches } = await dist('intake/intake-documents.js');
const { SecretScrubber } = await dist('log/secrets.js');

const VARIANTS = {
  'as is': () => {},
  'no fsync': (db) => db.pragma('synchronous = NORMAL'),
};

/** Each company's file, read once by the real reader into the documents the intake would store. */
async function readFiles() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-bench-burst-files-'));
  try {
    const files = [];
    for (const company of benchCompanies(n)) {
      const file = path.join(dir, `carga-${company.alias}.jsonl`);
      writeFileSync(file, `${companyInvoiceLines(company, PER_COMPANY).join('\n')}\n`);
      const st = statSync(file);
      const job = {
        path: file,
        kind: 'invoice',
        company: { alias: company.alias, nit: company.nit },
        expect: { size: st.size, mtimeMs: st.mtimeMs },
        maxRecordBytes: 1 << 20,
        today: colombiaToday(),
      };
      const read = await readDocumentBatches(job, new SecretScrubber([]));
      const docs = [];
      for await (const batch of read.batches) docs.push(...batch);
      files.push({ company: company.alias, file, size: st.size, sha256: read.sha256(), docs });
    }
    return files;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function once(variant, files) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-bench-burst-ledger-'));
  const ledger = Ledger.open(dir);
  try {
    VARIANTS[variant](ledger.db);
    let commits = 0;
    const exec = ledger.db.exec.bind(ledger.db);
    ledger.db.exec = (sql) => {
      if (sql === 'COMMIT') commits += 1;
      return exec(sql);
    };
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    let next = 0;
    const store = async () => {
      while (next < files.length) {
        const f = files[next++];
        const rec = await ledger.recordFile({
          path: f.file,
          name: path.basename(f.file),
          size: f.size,
          sha256: f.sha256,
          kind: 'invoice',
          company: f.company,
          now: Date.now(),
        });
        await ledger.insertDocuments(rec.fileId, f.docs);
        await ledger.finishReading(rec.fileId, undefined, {
          format: 'jsonl',
          encoding: 'utf-8',
          header: null,
        });
      }
    };
    await Promise.all(Array.from({ length: INTAKES }, store));
    const wall = performance.now() - t0;
    const busy = performance.eventLoopUtilization(elu0).active;
    const stored = ledger.db.prepare('SELECT count(*) FROM documents').pluck().get();
    if (stored !== n * PER_COMPANY) throw new Error(`expected ${n * PER_COMPANY}, got ${stored}`);
    return {
      wallMs: round(wall, 0),
      mainBusyMs: round(busy, 0),
      commits,
      ofLimitAtMost: round(4 / (4 + wall / 1000), 3),
    };
  } finally {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const files = await readFiles();
const results = Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, []]));
for (let r = 0; r < runs; r++) {
  for (const v of Object.keys(VARIANTS)) {
    const load = loadNow();
    const one = await once(v, files);
    results[v].push(one);
    console.error(`run ${r + 1} ${v}: ${JSON.stringify(one)} (load ${load})`);
  }
}
const summary = Object.fromEntries(
  Object.entries(results).map(([v, rs]) => [
    v,
    {
      wallMs: median(rs.map((x) => x.wallMs)),
      mainBusyMs: median(rs.map((x) => x.mainBusyMs)),
      commits: median(rs.map((x) => x.commits)),
      ofLimitAtMost: median(rs.map((x) => x.ofLimitAtMost)),
    },
  ]),
);
console.log(JSON.stringify({ companies: n, documents: n * PER_COMPANY, runs, summary }));
