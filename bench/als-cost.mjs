// What the ledger's transaction guard (an AsyncLocalStorage, src/ledger/sql/tx-scope.ts) costs every await of
// the process once its first run() happened: on Node 22 a promise hook on every promise, on Node 24+ nothing.
//   node bench/als-cost.mjs off|on
import { AsyncLocalStorage } from 'node:async_hooks';
const als = new AsyncLocalStorage();
async function work(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x += await Promise.resolve(i);
  return x;
}
const N = 2_000_000;
const mode = process.argv[2];
if (mode === 'on') await als.run({}, () => Promise.resolve()); // the guard's first run: enables the hook (Node 22)
await work(100000);
const t = process.cpuUsage();
await work(N);
const u = process.cpuUsage(t);
console.log(
  process.version,
  mode,
  Math.round((u.user + u.system) / 1000),
  'ms CPU for',
  N,
  'awaits',
);
