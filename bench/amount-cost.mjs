// tryParseAmount (src/policy/amount.ts) of two builds side by side: 301,200 reads of amounts with 1 to 6
// integer digits (and four odd texts), 7 alternating runs, medians.
//   sh bench/private-build.sh /tmp/before && sh bench/private-build.sh /tmp/after
//   node bench/amount-cost.mjs /tmp/before/dist /tmp/after/dist
import { performance } from 'node:perf_hooks';
import { alternating } from './lib/util.mjs';

const [a, b] = process.argv.slice(2);
const before = (await import(`${a}/policy/amount.js`)).tryParseAmount;
const after = (await import(`${b}/policy/amount.js`)).tryParseAmount;
const texts = Array.from(
  { length: 1000 },
  (_, i) => `${(i * 7919) % 1000000}.${String(i % 100).padStart(2, '0')}`,
).concat(['-5.00', '0.00', 'abc', '1.5']);

function time(parse) {
  let sum = 0;
  const started = performance.now();
  for (let r = 0; r < 300; r++) for (const text of texts) sum += parse(text) ?? 0;
  if (sum === 0) throw new Error('nothing read');
  return performance.now() - started;
}

const m = alternating(7, time, before, after);
console.log(
  `${300 * texts.length} amounts: before ${m.before.toFixed(1)} ms, after ${m.after.toFixed(1)} ms`,
);
