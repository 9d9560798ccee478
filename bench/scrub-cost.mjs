// The many-keys secret scan (src/log/secrets.ts) of two builds side by side: 8,000 scrubs of a
// 3,870-character document with 200 random keys of 24 characters, 7 alternating runs, medians.
//   sh bench/private-build.sh /tmp/before && sh bench/private-build.sh /tmp/after
//   node bench/scrub-cost.mjs /tmp/before/dist /tmp/after/dist
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { alternating } from './lib/util.mjs';

const [a, b] = process.argv.slice(2);
const Before = (await import(`${a}/log/secrets.js`)).SecretScrubber;
const After = (await import(`${b}/log/secrets.js`)).SecretScrubber;
const keys = Array.from({ length: 200 }, () => randomBytes(18).toString('base64url'));
const doc = JSON.stringify({
  Number: 'SETP990000001',
  lines: Array.from({ length: 20 }, (_, i) => ({
    Description: `Artículo número ${i} de prueba`,
    Quantity: '1.00',
    UnitPrice: '1000.00',
    Taxes: [{ Code: '01', Percent: '19.00', Amount: '190.00' }],
  })),
}).padEnd(3870, ' ');

function time(Scrubber) {
  const scrubber = new Scrubber(keys);
  let n = 0;
  const started = performance.now();
  for (let i = 0; i < 8000; i++) n += scrubber.scrub(doc + i).length;
  if (n === 0) throw new Error('nothing scrubbed');
  return performance.now() - started;
}

const m = alternating(7, time, Before, After);
console.log(
  `8,000 scrubs: before ${m.before.toFixed(0)} ms, after ${m.after.toFixed(0)} ms (doc ${doc.length} chars)`,
);
