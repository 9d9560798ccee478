// Sums a `.cpuprofile`'s self time by function and script, and — for the natives called from the
// ledger (better-sqlite3's exec / run / all / get / iterate, a statement's step or a COMMIT's fsync) —
// by the first frame of ours above them (dist/…), so "SQLite exec 270 ms" splits into who called it.
//   node bench/profile-callers.mjs FILE.cpuprofile [TOP] [--from MS --to MS] [--busiest MS] [--callers NAME …]
// --from/--to: only the samples in that window (ms after the profile's start); --busiest MS: only the
// busiest window of that length (most non-idle samples), e.g. the burst.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  return v;
};
let from = flag('--from');
let to = flag('--to');
const busiest = flag('--busiest');
const callersAt = args.indexOf('--callers');
const [file, topText] = callersAt < 0 ? args : args.slice(0, callersAt);
const top = Number(topText ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// sample times (ms after start)
const times = [];
let t = 0;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i] ?? 0;
  times.push(t / 1000);
}
const isIdle = (id) => nodes.get(id).callFrame.functionName === '(idle)';
if (busiest !== undefined) {
  // sliding window over the samples: the one with most non-idle time
  let best = 0;
  let sum = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    if (!isIdle(profile.samples[hi])) sum += profile.timeDeltas[hi] ?? 0;
    while (times[hi] - times[lo] > busiest) {
      if (!isIdle(profile.samples[lo])) sum -= profile.timeDeltas[lo] ?? 0;
      lo++;
    }
    if (sum > best) [best, from, to] = [sum, times[lo], times[hi]];
  }
}
const inWindow = (i) =>
  (from === undefined || times[i] >= from) && (to === undefined || times[i] <= to);

const short = (url) => url.replace(/^.*\/(dist|node_modules)\//, '$1/').replace(/^file:\/\//, '');
const frameName = (id) => {
  const f = nodes.get(id).callFrame;
  return `${f.functionName || '(anonymous)'} ${short(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
};
/** The first two frames above `id` from our own code (dist/, or src/ under vitest) outside ledger/sql/. */
const oursAbove = (id) => {
  const found = [];
  for (let p = parent.get(id); p !== undefined && found.length < 2; p = parent.get(p)) {
    const url = nodes.get(p).callFrame.url;
    if (/\/(dist|src)\//.test(url) && !/node_modules|\/ledger\/sql\//.test(url))
      found.push(frameName(p));
  }
  return found.length === 0 ? '(none of ours)' : found.join(' <- ');
};
/**
 * A frame whose self time is SQLite's own work: V8 shows no frame for a native method, so a statement's
 * step or a COMMIT counts in the JS that called it (better-sqlite3's wrappers, the executor's *Now,
 * bench/lib/count-commits.mjs's wrappers), or in a native frame without a script.
 */
const SQLITE_FRAMES =
  /^(exec|run|all|get|iterate|prepare|pragma|statement\.run|allNow|getNow|runNow|runManyNow)$/;
const sqliteNative = (id) => {
  const f = nodes.get(id).callFrame;
  if (!SQLITE_FRAMES.test(f.functionName)) return false;
  if (/better-sqlite3|count-commits|\/ledger\/sql\//.test(f.url)) return true;
  if (f.url !== '') return false;
  const p = parent.get(id);
  const url = p === undefined ? '' : nodes.get(p).callFrame.url;
  return /better-sqlite3|\/ledger\//.test(url);
};

const byFn = new Map();
const byCaller = new Map();
let total = 0;
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  if (!inWindow(i)) continue;
  const id = profile.samples[i];
  const us = profile.timeDeltas[i] ?? 0;
  total += us;
  if (isIdle(id)) continue;
  busy += us;
  const k = frameName(id);
  byFn.set(k, (byFn.get(k) ?? 0) + us);
  if (sqliteNative(id)) {
    const c = `${nodes.get(id).callFrame.functionName} <- ${oursAbove(id)}`;
    byCaller.set(c, (byCaller.get(c) ?? 0) + us);
  }
}
const ms = (us) => (us / 1000).toFixed(0).padStart(6);
const window = from === undefined ? 'whole profile' : `${from.toFixed(0)}–${to.toFixed(0)} ms`;
console.log(`${window}: total ${ms(total)} ms, busy (not idle) ${ms(busy)} ms`);
console.log(`\ntop self time by function:`);
for (const [k, us] of [...byFn].sort((x, y) => y[1] - x[1]).slice(0, top))
  console.log(`${ms(us)} ms  ${k}`);
console.log(`\nSQLite natives by the first caller of ours:`);
for (const [k, us] of [...byCaller].sort((x, y) => y[1] - x[1]).slice(0, top))
  console.log(`${ms(us)} ms  ${k}`);

// --callers NAME (any number): the self time of functions called NAME, by the chain of frames above them
for (
  let i = process.argv.indexOf('--callers');
  i >= 0;
  i = process.argv.indexOf('--callers', i + 1)
) {
  const name = process.argv[i + 1];
  const chains = new Map();
  for (let s = 0; s < profile.samples.length; s++) {
    if (!inWindow(s)) continue;
    const id = profile.samples[s];
    if (nodes.get(id).callFrame.functionName !== name) continue;
    const up = [];
    for (let p = parent.get(id); p !== undefined && up.length < 4; p = parent.get(p)) {
      const f = nodes.get(p).callFrame;
      if (f.functionName !== '' || f.url !== '') up.push(frameName(p));
    }
    const k = up.join(' <- ');
    chains.set(k, (chains.get(k) ?? 0) + (profile.timeDeltas[s] ?? 0));
  }
  console.log(`\n${name} by caller:`);
  for (const [k, us] of [...chains].sort((x, y) => y[1] - x[1]).slice(0, 8))
    console.log(`${ms(us)} ms  ${k}`);
}
