// The intake worker's validation of one document (kinds/validate-document.ts: schema, guards, check
// digits, issuer, totals) and its totals rule alone, two builds side by side: 20,000 validations of the
// shared invoice fixture (3 lines), 7 alternating runs, medians of the CPU per document (µs).
//   sh bench/private-build.sh /tmp/before && sh bench/private-build.sh /tmp/after
//   node bench/validate-cost.mjs /tmp/before /tmp/after
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { alternating, colombiaToday, ROOT } from './lib/util.mjs';

const [a, b] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: node bench/validate-cost.mjs BEFORE_DIR AFTER_DIR');
const load = async (dir) => ({
  validate: (await import(path.resolve(dir, 'dist/kinds/validate-document.js'))).validateDocument,
  totals: (await import(path.resolve(dir, 'dist/validate/totals.js'))).invoiceTotals,
});
const before = await load(a);
const after = await load(b);
const text = readFileSync(path.join(ROOT, 'test/fixtures/requests/invoice.json'), 'utf8');
const docs = Array.from({ length: 1000 }, () => JSON.parse(text));
const ctx = { today: colombiaToday().iso, issuerNit: '900123456' };
const ROUNDS = 20;

function timer(which) {
  return (build) => {
    const started = process.threadCpuUsage();
    let problems = 0;
    for (let r = 0; r < ROUNDS; r++)
      for (const doc of docs)
        problems += (which === 'totals' ? build.totals(doc) : build.validate('invoice', doc, ctx))
          .length;
    if (problems !== 0) throw new Error(`the fixture has ${problems} problems`);
    const used = process.threadCpuUsage(started);
    return (used.user + used.system) / (ROUNDS * docs.length);
  };
}

for (const which of ['validateDocument', 'totals']) {
  const time = timer(which);
  time(before); // warm both
  time(after);
  const m = alternating(7, time, before, after);
  console.log(
    `${which}: before ${m.before.toFixed(2)} µs, after ${m.after.toFixed(2)} µs per document ` +
      `(${ROUNDS * docs.length} documents a run, medians of 7)`,
  );
}
