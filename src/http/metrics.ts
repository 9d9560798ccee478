/**
 * `GET /metrics`: Prometheus text format from prom-client, on a registry of its own (never the
 * global one, so two daemons in one test process, or a library that registers globally, do not mix).
 *
 * What the ledger knows is read from it at scrape time, so it is right after any restart (a SIGKILL
 * included): documents by company, kind and status, files by outcome, received documents, the queue
 * and the in-doubt documents. What only this process sees (requests and their durations) is counted
 * in memory from the client's observers and starts from zero with the process, as counters do.
 * Labels carry only bounded values: configured company aliases, the spec's operation ids, HTTP
 * status codes, the kinds and states of PRODUCT; never a file name, a key or a document number.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { OperatorCounts } from '../ledger/operator-counts.js';
import type { RangeState } from '../ranges/range-state.js';
import type { CallObserver } from '../service/client-types.js';
import type { Route } from './route.js';

export interface MetricsSources {
  /** The ledger's counts, read at each scrape. */
  counts(): Promise<OperatorCounts>;
  /** The configured companies (the current configuration: it changes on SIGHUP). */
  companies(): readonly { alias: string; id: number }[];
  /** Subscribes to every service call (ServiceClient.observe); returns the unsubscribe. */
  observe(observer: CallObserver): () => void;
  /** The numbering-range watch's view, when it runs (ranges/). */
  ranges?: () => readonly RangeState[];
}

export interface OperatorMetrics {
  readonly registry: Registry;
  readonly route: Route;
  /** Stops listening to the client. Idempotent. */
  close(): void;
}

/** Request durations: from a fast answer to the client's 30 s timeout. */
const DURATION_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createOperatorMetrics(
  sources: MetricsSources,
  access: Route['access'] = 'token',
): OperatorMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // One ledger read per scrape, shared by every gauge that comes from it (read by the route before
  // the registry collects; a caller of `registry.metrics()` alone gets one read per gauge). The read is
  // async (the ledger port), so these gauges collect asynchronously (prom-client awaits them).
  let scrape: OperatorCounts | undefined;
  const counts = async (): Promise<OperatorCounts> => scrape ?? sources.counts();
  /** A per-company gauge: the documents in `states`, 0 for a configured company with none. */
  const perCompany = async (gauge: Gauge<'company'>, states: readonly string[]): Promise<void> => {
    const c = await counts();
    gauge.reset();
    for (const company of sources.companies()) gauge.set({ company: company.alias }, 0);
    for (const r of c.documents)
      if (states.includes(r.state)) gauge.inc({ company: r.company }, r.n);
  };

  new Gauge({
    name: 'edoc_documents_total',
    registers: [registry],
    labelNames: ['company', 'kind', 'status'] as const,
    help: 'Documents in the ledger by company, kind and status (as in result.json). A gauge: a document moves from pending to its final status; the final statuses only grow.',
    async collect() {
      const c = await counts();
      this.reset();
      for (const r of c.documents)
        this.set({ company: r.company, kind: r.kind, status: r.state }, r.n);
    },
  });
  new Gauge({
    name: 'edoc_queue_depth',
    registers: [registry],
    labelNames: ['company'] as const,
    help: 'Documents waiting to be sent or being sent (pending + sending), per company.',
    async collect() {
      await perCompany(this, ['pending', 'sending']);
    },
  });
  new Gauge({
    name: 'edoc_in_doubt_documents',
    registers: [registry],
    labelNames: ['company'] as const,
    help: 'Documents in doubt (an attempt may have been issued; needs resolve), per company.',
    async collect() {
      await perCompany(this, ['in-doubt']);
    },
  });
  new Gauge({
    name: 'edoc_files_total',
    registers: [registry],
    labelNames: ['kind', 'outcome'] as const,
    help: 'Input files in the ledger by kind and outcome (reading, open, done, failed-read, duplicate).',
    async collect() {
      const c = await counts();
      this.reset();
      for (const r of c.files) this.set({ kind: r.kind, outcome: r.outcome }, r.n);
    },
  });
  new Counter({
    name: 'edoc_received_documents_total',
    registers: [registry],
    labelNames: ['company'] as const,
    help: 'Received documents (pulled from the service) in the ledger, per company.',
    async collect() {
      const c = await counts();
      this.reset();
      for (const r of c.received) this.inc({ company: r.company }, r.n);
    },
  });

  new Gauge({
    name: 'edoc_range_numbers_left',
    registers: [registry],
    labelNames: ['company', 'prefix'] as const,
    help: 'Numbers left in the active numbering range of a prefix (E10 combined with the ledger).',
    collect() {
      this.reset();
      for (const r of sources.ranges?.() ?? [])
        this.set({ company: r.company, prefix: r.prefix }, r.numbersLeft);
    },
  });
  new Gauge({
    name: 'edoc_range_days_left',
    registers: [registry],
    labelNames: ['company', 'prefix'] as const,
    help: 'Days (America/Bogota) until the active numbering range of a prefix expires; negative once expired.',
    collect() {
      this.reset();
      for (const r of sources.ranges?.() ?? [])
        this.set({ company: r.company, prefix: r.prefix }, r.daysLeft);
    },
  });

  const requests = new Counter({
    name: 'edoc_requests_total',
    registers: [registry],
    labelNames: ['company', 'endpoint', 'code'] as const,
    help: "Requests to the service by company, endpoint (the spec's operation id, E1-E13) and HTTP status (`none`: no answer).",
  });
  const durations = new Histogram({
    name: 'edoc_request_duration_seconds',
    registers: [registry],
    labelNames: ['company', 'endpoint'] as const,
    buckets: DURATION_BUCKETS,
    help: 'Duration of requests to the service, from sending to the whole answer read (or the failure).',
  });
  const aliasOf = (companyId: string): string =>
    sources.companies().find((c) => String(c.id) === companyId)?.alias ?? 'unknown';
  const stop = sources.observe((call) => {
    if (call.aborted) return; // our own shutdown: says nothing about the service
    const company = aliasOf(call.companyId);
    requests.inc({
      company,
      endpoint: call.op,
      code: call.httpStatus === undefined ? 'none' : String(call.httpStatus),
    });
    durations.observe({ company, endpoint: call.op }, call.durationMs / 1_000);
  });

  let closed = false;
  return {
    registry,
    route: {
      method: 'GET',
      path: '/metrics',
      access,
      async handle({ res }) {
        let text: string;
        try {
          scrape = await sources.counts();
          text = await registry.metrics();
        } finally {
          scrape = undefined;
        }
        res.writeHead(200, {
          'Content-Type': registry.contentType,
          'Content-Length': Buffer.byteLength(text),
        });
        res.end(text);
      },
    },
    close() {
      if (closed) return;
      closed = true;
      stop();
    },
  };
}
