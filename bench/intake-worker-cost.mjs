// The intake worker's work on the many-companies burst, two builds side by side: 200 JSONL files of 40
// invoices (the files of bench/intake-burst.mjs, one per company, each company's NIT as issuer), each
// hashed (read/hash.ts) and then read, mapped, validated and turned into batches (readDocumentBatches)
// with the 200 companies' keys as the secrets, every batch cloned as postMessage clones it. Each run is a
// worker thread with the intake worker's young generation (8 MB), warmed on 20 files first; the figure is
// that thread's CPU per 1,000 documents (ms). Builds alternate, the order inside a pair too; medians.
//   sh bench/private-build.sh /tmp/before && sh bench/private-build.sh /tmp/after
//   node bench/intake-worker-cost.mjs /tmp/before /tmp/after [runs] [EXTRA_SECRETS_DIR]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { benchCompanies } from './lib/cluster.mjs';
import { companyInvoiceLines } from './lib/documents.mjs';
import { colombiaToday, median } from './lib/util.mjs';

const [before, after, runsArg = '5'] = process.argv.slice(2);
if (!before || !after)
  throw new Error('usage: node bench/intake-worker-cost.mjs BEFORE_DIR AFTER_DIR [runs]');
const runs = Number(runsArg);
const COMPANIES = 200;
const PER_FILE = 40;
const WARM_FILES = 20;

// the worker's part: plain CommonJS text, so it needs no file of its own
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const { code, files, secrets, today } = workerData;
  const { hashFile } = await import(code + '/dist/read/hash.js');
  const { readDocumentBatches } = await import(code + '/dist/intake/intake-documents.js');
  const { SecretScrubber } = await import(code + '/dist/log/secrets.js');
  const scrubber = new SecretScrubber(secrets);
  async function take(f) {
    const h = await hashFile(f.path);
    const job = {
      path: f.path, kind: 'invoice', company: f.company,
      expect: { size: h.size, mtimeMs: h.mtimeMs }, ...(h.text && { text: h.text }),
      maxRecordBytes: 32 * 1024 * 1024, today,
    };
    const read = await readDocumentBatches(job, scrubber);
    let docs = 0;
    let invalid = 0;
    for await (const batch of read.batches) {
      const copy = structuredClone(batch);
      docs += copy.length;
      for (const d of copy) if (d.problems.length > 0) invalid++;
    }
    if (read.sha256() !== h.sha256) throw new Error('the read hashed other bytes');
    return { docs, invalid };
  }
  for (const f of files.slice(0, ${WARM_FILES})) await take(f);
  const started = process.threadCpuUsage();
  let docs = 0;
  let invalid = 0;
  for (const f of files) {
    const r = await take(f);
    docs += r.docs;
    invalid += r.invalid;
  }
  const used = process.threadCpuUsage(started);
  parentPort.postMessage({ cpuMs: (used.user + used.system) / 1000, docs, invalid });
})().catch((err) => { console.error(err); process.exit(1); });
`;

function run(code, files, secrets) {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: { code: path.resolve(code), files, secrets, today: colombiaToday().iso },
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    w.once('message', resolve);
    w.once('error', reject);
    w.once('exit', (c) => c !== 0 && reject(new Error(`worker exit ${c}`)));
  });
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-worker-cost-'));
try {
  const companies = benchCompanies(COMPANIES);
  const files = [];
  for (const company of companies) {
    const lines = companyInvoiceLines(company, PER_FILE);
    const file = path.join(dir, `carga-${company.alias}.jsonl`);
    await writeFile(file, `${lines.join('\n')}\n`);
    files.push({ path: file, company: { alias: company.alias, nit: company.nit } });
  }
  const secrets = companies.map((c) => c.apiKey);
  const out = { before: [], after: [] };
  for (let r = 0; r < runs; r++) {
    const order = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const name of order) {
      const x = await run(name === 'before' ? before : after, files, secrets);
      const per1000 = (x.cpuMs * 1000) / x.docs;
      console.log(
        JSON.stringify({ build: name, run: r + 1, docs: x.docs, invalid: x.invalid, per1000 }),
      );
      out[name].push(per1000);
    }
  }
  for (const [name, values] of Object.entries(out))
    console.log(
      `${name}: ${median(values).toFixed(1)} ms of the worker's CPU per 1,000 documents ` +
        `(median of ${values.length}: ${values.map((v) => v.toFixed(1)).join(', ')})`,
    );
} finally {
  await rm(dir, { recursive: true, force: true });
}
