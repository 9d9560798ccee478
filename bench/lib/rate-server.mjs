// An independent stand-in for the service, for the many-companies scenario: plain node:http in a process of
// its own (forked by the bench, never the emulator's code), holding the service's rate rules per company
// (`x-company-id`) itself, so neither the daemon's rate code nor the emulator's judges the daemon:
//   - at most R requests arriving in any sliding 1,000 ms (refused: 429, not counted, Retry-After: 1);
//   - at most C requests in flight (refused: 429);
//   - every admitted request answered after L ms.
// E1 (process-invoice) answers acceptance; E10 (ranges by NIT) one invoice range SETP 990,000,000–995,000,000;
// E12 (received documents) an empty page; anything else 404. Every request counts against its company.
// A message { latency: L } changes L for the requests that arrive after it.
//   fork('bench/lib/rate-server.mjs', [R, C, L]) → message { url }; send 'stats' → message { stats }.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const [rps, concurrency, startLatencyMs] = process.argv.slice(2).map(Number);
/** Changed by a { latency } message (the intake-only run holds every answer back). */
let latencyMs = startLatencyMs;
const now = () => performance.timeOrigin + performance.now();

/** per company: arrival times admitted in the last second, requests in flight, and what it was answered */
const companies = new Map();
const totals = {
  accepted: 0,
  other: 0,
  refusedRate: 0,
  refusedConcurrency: 0,
  notFound: 0,
  firstArrival: undefined,
  lastAnswer: undefined,
};

function companyOf(id) {
  let c = companies.get(id);
  if (c === undefined) {
    c = { window: [], inFlight: 0, accepted: 0, busiest: 0 };
    companies.set(id, c);
  }
  return c;
}

const OK = JSON.stringify({
  Errors: [],
  IsValid: true,
  ResultCode: 200,
  Warning: [],
  ResultData: 'Procesado Correctamente.',
});
const RANGES = JSON.stringify({
  Errors: [],
  IsValid: true,
  ResultCode: 200,
  Warning: [],
  ResultData: [
    {
      FromNumber: '990000000',
      ToNumber: '995000000',
      Prefix: 'SETP',
      ResolutionNumber: '18760000001',
      ResolutionDate: '2019-01-19',
      ResolutionType: '01',
      TechnicalKey: 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c',
      ValidDateFrom: '2019-01-19',
      ValidDateTo: '2030-01-19',
    },
  ],
});
const RECEIVED = JSON.stringify({
  Errors: [],
  IsValid: true,
  ResultCode: 200,
  Warning: [],
  ResultData: { data: [], page: 1, per_page: 20, total: 0, total_pages: 0 },
});
const REFUSED = JSON.stringify({ status: 429, error: 'Too Many Requests' });

function reply(res, status, body, headers = {}) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

function answerFor(path) {
  if (path === '/svcOrchestratorController/v1/process-invoice') return [OK, true];
  if (
    path.startsWith('/public/api/numeraciones/v1/by-nit') ||
    path.startsWith('/public/api/numeraciones/by-nit')
  )
    return [RANGES, false];
  if (
    path.startsWith('/public/api/mail-receiver/v1/received-invoices') ||
    path.startsWith('/public/svcMailReceiver/received-invoices')
  ) {
    return [RECEIVED, false];
  }
  return [undefined, false];
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const t = now();
    const company = companyOf(String(req.headers['x-company-id'] ?? ''));
    const [body, submission] = answerFor(req.url ?? '');
    if (body === undefined) {
      totals.notFound += 1;
      reply(res, 404, '{}');
      return;
    }
    const w = company.window;
    while (w.length > 0 && w[0] <= t - 1000) w.shift();
    if (w.length >= rps) {
      totals.refusedRate += 1;
      reply(res, 429, REFUSED, { 'retry-after': '1' });
      return;
    }
    if (company.inFlight >= concurrency) {
      totals.refusedConcurrency += 1;
      reply(res, 429, REFUSED, { 'retry-after': '1' });
      return;
    }
    w.push(t);
    company.busiest = Math.max(company.busiest, w.length);
    company.inFlight += 1;
    if (submission) {
      totals.firstArrival ??= t;
      company.first ??= t;
    }
    setTimeout(() => {
      company.inFlight -= 1;
      if (submission) {
        company.accepted += 1;
        totals.accepted += 1;
        totals.lastAnswer = now();
        company.last = totals.lastAnswer;
      } else {
        totals.other += 1;
      }
      reply(res, 200, body);
    }, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;

function stats() {
  let busiest = 0;
  for (const c of companies.values()) busiest = Math.max(busiest, c.busiest);
  const cpu = process.cpuUsage();
  // per company: its first submission's arrival after the run's first, and its first arrival → last answer
  const sent = [...companies.values()].filter((c) => c.first !== undefined);
  const q = (xs, f) => {
    const sorted = xs.toSorted((a, b) => a - b);
    return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))] ?? 0);
  };
  const starts = sent.map((c) => c.first - totals.firstArrival);
  const spans = sent.map((c) => c.last - c.first);
  return {
    ...totals,
    startMs: { median: q(starts, 0.5), p90: q(starts, 0.9), max: q(starts, 1) },
    spanMs: { median: q(spans, 0.5), p90: q(spans, 0.9), max: q(spans, 1) },
    companies: companies.size,
    busiestSecond: busiest,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

process.on('message', (m) => {
  if (m === 'stats') process.send({ stats: stats() });
  else if (m === 'reset') {
    companies.clear();
    Object.assign(totals, {
      accepted: 0,
      other: 0,
      refusedRate: 0,
      refusedConcurrency: 0,
      notFound: 0,
      firstArrival: undefined,
      lastAnswer: undefined,
    });
    process.send({ reset: true });
  } else if (m === 'close') process.exit(0);
  else if (typeof m === 'object' && m !== null && typeof m.latency === 'number') {
    latencyMs = m.latency;
    process.send({ latency: latencyMs });
  }
});
server.listen(0, '127.0.0.1', () =>
  process.send({ url: `http://127.0.0.1:${server.address().port}` }),
);
