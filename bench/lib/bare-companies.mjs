// The many-companies scenario's bare loop: the same invoices the daemon is given (40 per company, numbered,
// each company's NIT as issuer), sent with undici by COMPANIES independent per-company loops on the daemon's
// rate rules and nothing else: at most C requests in flight per company, and a request starts only while the
// company has fewer than R requests in flight or ended in the last 1,000 ms + 1 (slots dated by a request's
// end, as the daemon dates them, so the service's sliding second over arrivals holds whatever the transit).
// One undici Pool per company with C connections. Runs as its own process, like the daemon.
//   node bench/lib/bare-companies.mjs URL COMPANIES PER_COMPANY R C → { ms, cpuMs, statuses }
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { benchCompanies } from './cluster.mjs';
import { companyInvoiceLines } from './documents.mjs';

const [url, companiesText, perText, rpsText, concurrencyText] = process.argv.slice(2);
const [perCompany, rps, concurrency] = [Number(perText), Number(rpsText), Number(concurrencyText)];
const companies = benchCompanies(Number(companiesText));
const origin = new URL(url).origin;
const statuses = {};

async function companyLoop(company, pool, queue) {
  const headers = {
    'x-api-key': company.apiKey,
    'x-company-id': String(company.id),
    'content-type': 'application/json',
  };
  const ends = [];
  let inFlight = 0;
  let next = 0;
  async function worker() {
    while (next < queue.length) {
      for (;;) {
        const t = performance.now();
        while (ends.length > 0 && ends[0] <= t - 1001) ends.shift();
        if (inFlight + ends.length < rps) break;
        await sleep(Math.max(1, Math.ceil(ends[0] + 1001 - t)));
      }
      if (next >= queue.length) return;
      const body = queue[next++];
      inFlight += 1;
      const res = await pool.request({
        method: 'POST',
        path: '/svcOrchestratorController/v1/process-invoice',
        headers,
        body,
      });
      await res.body.text();
      inFlight -= 1;
      ends.push(performance.now());
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode !== 200) queue.push(body);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const work = companies.map((c) => ({
  company: c,
  pool: new Pool(origin, { connections: concurrency }),
  queue: companyInvoiceLines(c, perCompany),
}));
const started = performance.now();
const cpuBefore = process.cpuUsage();
await Promise.all(work.map((w) => companyLoop(w.company, w.pool, w.queue)));
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
await Promise.all(work.map((w) => w.pool.close()));
process.stdout.write(JSON.stringify({ ms, statuses, cpuMs: (cpu.user + cpu.system) / 1000 }));
