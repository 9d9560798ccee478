// The bare loop's requests sent through the daemon's ServiceClient (issueInvoice, with a caller's
// signal as the sender passes it), for bench/client-cost.mjs: what the client adds to
// undici per request. Runs as its own process; prints { ms, cpuMs, statuses }.
//   node bench/lib/client-loop.mjs URL COUNT CONCURRENCY FIRST_NUMBER   (EDOC_BENCH_CODE selects the build)
import { performance } from 'node:perf_hooks';
import { invoice } from './documents.mjs';
import { COMPANY } from './emulator.mjs';
import { dist } from './util.mjs';

const [url, countText, concurrencyText, firstText] = process.argv.slice(2);
const count = Number(countText);
const concurrency = Number(concurrencyText);
const first = Number(firstText);
const { ServiceClient } = await dist('service/client.js');
const { JsonText } = await dist('service/json-text.js');
// the sender sends the stored request text as is (service/json-text.ts)
const bodies = Array.from(
  { length: count },
  (_, i) => new JsonText(JSON.stringify(invoice(first + i))),
);
const client = new ServiceClient({ baseUrl: url, timeoutMs: 30_000 });
const company = { id: COMPANY.id, apiKey: COMPANY.apiKey, userId: COMPANY.userId };
const stop = new AbortController();
const statuses = {};
let next = 0;

async function worker() {
  while (next < count) {
    const body = bodies[next++];
    const res = await client.issueInvoice(company, body, { signal: stop.signal });
    statuses[res.httpStatus ?? res.outcome.kind] =
      (statuses[res.httpStatus ?? res.outcome.kind] ?? 0) + 1;
  }
}
const started = performance.now();
const cpuBefore = process.cpuUsage();
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
await client.close();
process.stdout.write(JSON.stringify({ ms, statuses, cpuMs: (cpu.user + cpu.system) / 1000 }));
