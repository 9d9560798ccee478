// Ledger migration 7's cost on the intake: insertDocuments of 100,000 documents with and without a customer id
// (one run of each in turn, 3 runs each; fresh ledger per run). `npm run build && node bench/customer-insert.mjs`
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
const { Ledger } = await import('../dist/ledger/ledger.js');
const N = 100_000;
function once(withCustomer) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-ins-'));
  const ledger = Ledger.open(dir);
  const { fileId } = ledger.recordFile({
    path: '/x/a.json',
    name: 'a.json',
    size: 1,
    sha256: 's',
    kind: 'invoice',
    company: 'main',
    now: 1,
  });
  const docs = Array.from({ length: N }, (_, i) => ({
    index: i,
    source: { lines: [i + 1] },
    number: `SETP/${i}`,
    ownNumber: true,
    raw: `{"SerieNumber":"${i}","CustomerParty":{"Identification":{"DocumentNumber":"9${String(i % 5000).padStart(8, '0')}"}}}`,
    requestFromRaw: true,
    request: {},
    customer: withCustomer ? `9${String(i % 5000).padStart(8, '0')}` : null,
  }));
  const t = performance.now();
  ledger.insertDocuments(fileId, docs, 1);
  const ms = performance.now() - t;
  ledger.close();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}
const a = [],
  b = [];
for (let r = 0; r < 3; r++) {
  a.push(once(false));
  b.push(once(true));
}
const med = (v) => v.sort((x, y) => x - y)[1];
console.log(
  `without customer: ${a.map((x) => x.toFixed(0)).join(', ')} ms (median ${med(a).toFixed(0)}); with: ${b.map((x) => x.toFixed(0)).join(', ')} ms (median ${med(b).toFixed(0)})`,
);
