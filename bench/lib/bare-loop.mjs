// The comparison for "own overhead": the same E1 requests (same bodies, same credential headers)
// sent by a bare undici Pool at the same concurrency, each answer read to the end. Runs as its own
// process, like the daemon, so the emulator (in the bench process) gets the same core split.
//   node bench/lib/bare-loop.mjs URL COUNT CONCURRENCY FIRST_NUMBER [WARM_FIRST_NUMBER]
// With WARM_FIRST_NUMBER the same loop first sends COUNT requests numbered from there, untimed, on the
// same pool (the "warm" comparison: a process that has done the work once, as a running daemon has).
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { invoice } from './documents.mjs';
import { COMPANY } from './emulator.mjs';

const [url, countText, concurrencyText, firstText, warmText] = process.argv.slice(2);
const count = Number(countText);
const concurrency = Number(concurrencyText);
const first = Number(firstText);
const bodiesFrom = (from) =>
  Array.from({ length: count }, (_, i) => JSON.stringify(invoice(from + i)));
const headers = {
  'x-api-key': COMPANY.apiKey,
  'x-company-id': String(COMPANY.id),
  'content-type': 'application/json',
};
const pool = new Pool(new URL(url).origin, { connections: concurrency });
let statuses = {};
let next = 0;
let bodies;
async function worker() {
  while (next < count) {
    const body = bodies[next++];
    const res = await pool.request({
      method: 'POST',
      path: '/svcOrchestratorController/v1/process-invoice',
      headers,
      body,
    });
    await res.body.text();
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
  }
}
if (warmText !== undefined) {
  bodies = bodiesFrom(Number(warmText));
  await Promise.all(Array.from({ length: concurrency }, worker));
  [statuses, next] = [{}, 0];
}
bodies = bodiesFrom(first);
const started = performance.now();
const cpuBefore = process.cpuUsage();
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
await pool.close();
process.stdout.write(JSON.stringify({ ms, statuses, cpuMs: (cpu.user + cpu.system) / 1000 }));
