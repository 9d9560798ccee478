// Summarises a `.cpuprofile` of the daemon: self time per area and the top self-time entries.
//   node bench/profile-summary.mjs FILE.cpuprofile [TOP] [FROM]
// FROM: only the samples from the first one inside a function of that name on (e.g. `run` for the intake
// worker's jobs: its start-up, the loading of its modules, left out).
// Areas: JSON (JSON.parse / JSON.stringify), zod, SQLite (better-sqlite3's JS and the native statement
// calls made from it or from src/ledger), pino (pino, sonic-boom and the calls made from them), undici,
// node internals, GC, idle, and our own code by src/ folder. A native function without a script of its
// own is counted in the area of the function that called it (except JSON).
import { readFileSync } from 'node:fs';

const [file, topText, from] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Whether a sample's stack holds a function named `name`. */
function inside(id, name) {
  for (let p = id; p !== undefined; p = parent.get(p))
    if (nodes.get(p).callFrame.functionName === name) return true;
  return false;
}

const self = new Map();
const dts = profile.timeDeltas;
let counting = from === undefined;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  counting ||= inside(id, from);
  if (counting) self.set(id, (self.get(id) ?? 0) + (dts[i] ?? 0));
}

function areaOfUrl(url) {
  if (url.includes('node_modules/zod')) return 'zod';
  if (url.includes('node_modules/better-sqlite3')) return 'SQLite';
  if (
    /node_modules\/(pino|sonic-boom|thread-stream|fast-redact|on-exit-leak-free|quick-format)/.test(
      url,
    )
  )
    return 'pino';
  if (url.includes('node_modules/undici')) return 'undici';
  if (url.includes('node_modules/chokidar') || url.includes('node_modules/readdirp'))
    return 'chokidar';
  if (url.includes('node_modules/p-queue') || url.includes('node_modules/eventemitter3'))
    return 'p-queue';
  if (url.includes('node_modules/'))
    return `other module ${url.split('node_modules/')[1].split('/')[0]}`;
  const m = /\/dist\/([^/]+)\//.exec(url) ?? /\/dist\/([^/]+)\.js/.exec(url);
  if (m) return m[1] === 'ledger' ? 'ledger (our code)' : `our code: ${m[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  return undefined;
}

function areaOf(id) {
  const n = nodes.get(id);
  const { functionName, url } = n.callFrame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return '(program)';
  if (functionName === '(root)') return '(root)';
  if (url === '' && (functionName === 'parse' || functionName === 'stringify')) return 'JSON';
  if (url !== '') return areaOfUrl(url) ?? 'other';
  // a native without a script: the caller's area; native calls from the ledger are SQLite's
  let p = parent.get(id);
  while (p !== undefined && nodes.get(p).callFrame.url === '') p = parent.get(p);
  if (p === undefined) return 'other';
  const a = areaOf(p);
  return a === 'ledger (our code)' ? 'SQLite' : a;
}

const byArea = new Map();
const byFn = new Map();
let total = 0;
let busy = 0;
for (const [id, us] of self) {
  const a = areaOf(id);
  byArea.set(a, (byArea.get(a) ?? 0) + us);
  total += us;
  if (a !== 'idle') busy += us;
  const f = nodes.get(id).callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1} [${a}]`;
  byFn.set(key, (byFn.get(key) ?? 0) + us);
}
const ms = (us) => (us / 1000).toFixed(0).padStart(6);
const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
console.log(`total ${ms(total)} ms, busy (not idle) ${ms(busy)} ms`);
console.log('\nself time by area (share of busy):');
for (const [a, us] of [...byArea].sort((x, y) => y[1] - x[1]))
  console.log(`${ms(us)} ms ${a === 'idle' ? '       ' : pct(us)}  ${a}`);
console.log(`\ntop self-time entries:`);
for (const [k, us] of [...byFn].sort((x, y) => y[1] - x[1]).slice(0, Number(topText ?? 30)))
  console.log(`${ms(us)} ms ${pct(us)}  ${k}`);

// inclusive time of some named functions of ours (a function counted once per stack)
const watch = [
  'intakeFile',
  'validateDocument',
  'commitSubmissions',
  'claimDue',
  'recordOutcomes',
  'writeFileReport',
  'writeResultFile',
  'settleFile',
  'markSending',
  'sendDocument',
  'atomicWrite',
  'flush',
  'write',
  'LOG',
];
const incl = new Map();
for (const [id, us] of self) {
  const seen = new Set();
  for (let p = id; p !== undefined; p = parent.get(p)) {
    const f = nodes.get(p).callFrame;
    if (!f.url.includes('/dist/')) continue;
    const name = f.functionName;
    if (!watch.includes(name) || seen.has(name)) continue;
    seen.add(name);
    incl.set(name, (incl.get(name) ?? 0) + us);
  }
}
console.log('\ninclusive time of named functions of ours:');
for (const [k, us] of [...incl].sort((x, y) => y[1] - x[1]))
  console.log(`${ms(us)} ms ${pct(us)}  ${k}`);
