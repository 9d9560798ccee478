// The emulator the bench starts in its own process on 127.0.0.1, with a trace of
// when requests arrived and when answers left (the emulator's Stats object is
// wrapped, so the times are taken where the emulator counts requests).
import { performance } from 'node:perf_hooks';
import { dist } from './util.mjs';

export const COMPANY = {
  alias: 'main',
  id: 1001,
  nit: '900123456',
  checkDigit: '8',
  apiKey: 'bench-key-1001',
  userId: 7,
};

function seed(faults) {
  return {
    today: null,
    faults: { ...faults },
    companies: [
      {
        id: COMPANY.id,
        nit: COMPANY.nit,
        checkDigit: COMPANY.checkDigit,
        name: 'Bench Comercial SAS',
        apiKey: COMPANY.apiKey,
        userIds: [COMPANY.userId],
        ranges: [
          {
            DocumentType: 'Invoice',
            Prefix: 'SETP',
            ResolutionNumber: '18760000001',
            ResolutionDate: '2019-01-19',
            TechnicalKey: 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c',
            FromNumber: 990_000_000,
            ToNumber: 995_000_000,
            ValidFrom: '2019-01-19T00:00:00',
            ValidTo: '2030-01-19T23:59:59',
            Active: true,
          },
        ],
      },
    ],
  };
}

/** Epoch milliseconds with sub-millisecond resolution (comparable with Date.now() of other processes). */
export function nowMs() {
  return performance.timeOrigin + performance.now();
}

/** The submissions (E1–E6): what the scenarios time. */
const SUBMISSIONS = new Set(['E1', 'E2', 'E3', 'E4', 'E5', 'E6']);

/**
 * Starts the emulator with `faults` (PRODUCT "Emulator seed file"). `trace` holds the first and last
 * arrival, the last answer, the statuses, and every arrival time when `keepArrivals` is set — of the
 * submissions only (`trace.onArrival(count)` and `trace.onAnswer(count)`, when set, are called at each): the daemon reads the numbering ranges (E10) as it starts, before any file is
 * dropped, and timing from that read would add the start → drop → intake span to the first figure.
 * Other requests are counted in `trace.other`. An emulator that does not tell the operation (builds
 * before 2026-11-25 18:30 UTC, which made no request at start) has every request counted.
 */
export async function startBenchEmulator(faults = {}, { keepArrivals = false } = {}) {
  const { startEmulator } = await dist('emulator/server.js');
  const running = await startEmulator({ host: '127.0.0.1', port: 0, seed: seed(faults) });
  const trace = {
    arrivals: 0,
    firstArrival: undefined,
    lastArrival: undefined,
    lastAnswer: undefined,
    answers: 0,
    times: [],
    statuses: {},
    other: { arrivals: 0, answers: 0 },
  };
  const stats = running.stats;
  const arrival = stats.arrival.bind(stats);
  stats.arrival = (company, now, op) => {
    if (op !== undefined && !SUBMISSIONS.has(op)) {
      trace.other.arrivals += 1;
    } else {
      const t = nowMs();
      trace.arrivals += 1;
      trace.firstArrival ??= t;
      trace.lastArrival = t;
      if (keepArrivals) trace.times.push(t);
      trace.onArrival?.(trace.arrivals);
    }
    arrival(company, now, op);
  };
  const record = stats.record.bind(stats);
  stats.record = (endpoint, status) => {
    if (SUBMISSIONS.has(endpoint)) {
      trace.answers += 1;
      trace.lastAnswer = nowMs();
      trace.statuses[status] = (trace.statuses[status] ?? 0) + 1;
      trace.onAnswer?.(trace.answers);
    } else {
      trace.other.answers += 1;
    }
    record(endpoint, status);
  };
  return {
    url: running.url,
    trace,
    snapshot: () => stats.snapshot(),
    issuedCount: () => running.state.data.documents.length,
    close: () => running.close(),
  };
}

/**
 * The bench process's CPU from the arrival of submission number `after + 1` to the answer of number
 * `after + count` (the emulator's work on those requests, and whatever else this process did meanwhile):
 * a function that gives it in ms, or undefined while that answer has not come.
 */
export function emulatorCpuMeter(trace, after, count) {
  let start;
  let used;
  trace.onArrival = (n) => {
    if (n === after + 1) start = process.cpuUsage();
  };
  trace.onAnswer = (n) => {
    if (n === after + count && start !== undefined) used = process.cpuUsage(start);
  };
  return () => (used === undefined ? undefined : (used.user + used.system) / 1000);
}
