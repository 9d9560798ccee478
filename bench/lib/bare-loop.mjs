// The comparison for "own overhead": the same E1 requests (same bodies, same credential headers)
// sent by a bare undici Pool at the same concurrency, each answer read to the end. Runs as its own
// process, like the daemon, so the emulator (in the bench process) gets the same core split.
//   node bench/lib/bare-loop.mjs URL COUNT CONCURRENCY FIRST_NUMBER
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { invoice } from './documents.mjs';
import { COMPANY } from './emulator.mjs';

const [url, countText, concurrencyText, firstText] = process.argv.slice(2);
const count = Number(countText);
const concurrency = Number(concurrencyText);
const first = Number(firstText);
const bodies = Array.from({ length: count }, (_, i) => JSON.stringify(invoice(first + i)));
const headers = { 'x-api-key': COMPANY.apiKey, 'x-company-id': String(COMPANY.id), 'content-type': 'application/json' };
const pool = new Pool(new URL(url).origin, { connections: concurrency });
const statuses = {};
let next = 0;
async function worker() {
  while (next < count) {
    const body = bodies[next++];
    const res = await pool.request({ method: 'POST', path: '/svcOrchestratorController/v1/process-invoice', headers, body });
    await res.body.text();
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
  }
}
const started = performance.now();
const cpuBefore = process.cpuUsage();
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
await pool.close();
process.stdout.write(JSON.stringify({ ms, statuses, cpuMs: (cpu.user + cpu.system) / 1000 }));
