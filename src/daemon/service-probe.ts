/**
 * The idle probe: when the service has had no call for `idleMs`, ask it something cheap so that
 * readiness (and the alerts) follow an outage while nothing is being sent.
 *
 * The request is E10, a company's numbering ranges: it is read-only (it can never issue, number or
 * change anything at the authority), needs only the company's own credentials and NIT (which every
 * configured company has), and its answer is small. Any HTTP answer counts as "the service answers"
 * (ServiceHealth), even a 401 for a revoked key; only no answer at all counts against it. Companies
 * take turns, one probe at a time, and each probe takes a slot of that company's rate (its run's,
 * company/company-run.ts), so a probe never pushes a company over its cap. Its timeout is short: a
 * service that hangs shows as down within `timeoutMs`, not the client's 30 s. Only the companies whose
 * run runs here with its gate open are asked: in a cluster another node's company is that node's to
 * count, and a node that holds none asks nothing (readiness says so).
 */
import type { CompanyRuns } from '../company/company-runs.js';
import type { Config } from '../config/schema.js';
import type { AppLogger } from '../log/logger.js';
import { RequestNotStarted } from '../rate/company-rate.js';
import type { ServiceClient } from '../service/client.js';

export interface ServiceProbeOptions {
  client: ServiceClient;
  /** The company runs of this process: a company is probed through its run's rate while its gate is open. */
  runs: Pick<CompanyRuns, 'get'>;
  /** The current configuration (it changes on SIGHUP). */
  config: () => Readonly<Config>;
  logger: AppLogger;
  /** Probe after this long without any call. @defaultValue config http.probeIdleMs, else 10000 */
  idleMs?: number;
  /** A probe's own timeout. @defaultValue 5000 */
  timeoutMs?: number;
}

export const SERVICE_PROBE_DEFAULTS = Object.freeze({ idleMs: 10_000, timeoutMs: 5_000 });

export class ServiceProbe {
  private lastCall = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private next = 0;
  private readonly stop = new AbortController();
  private unobserve: (() => void) | undefined;
  private closed = false;

  constructor(private readonly options: ServiceProbeOptions) {}

  private get idleMs(): number {
    return (
      this.options.idleMs ??
      this.options.config().http?.probeIdleMs ??
      SERVICE_PROBE_DEFAULTS.idleMs
    );
  }

  /** Probes at once (readiness needs a first answer), then whenever the service has been idle for `idleMs`. */
  start(): void {
    if (this.timer !== undefined || this.closed) return;
    this.unobserve = this.options.client.observe((call) => {
      if (!call.aborted) this.lastCall = Date.now();
    });
    this.tick();
  }

  private tick(): void {
    if (this.closed) return;
    const idle = Date.now() - this.lastCall;
    let wait = this.idleMs - idle;
    if (wait <= 0 && this.inFlight === undefined) {
      this.inFlight = this.probe().finally(() => {
        this.inFlight = undefined;
      });
      wait = this.idleMs;
    }
    // a tick at least every second: a reload may shorten idleMs; and a probe in flight is waited for
    this.timer = setTimeout(() => this.tick(), Math.max(50, Math.min(wait, 1_000)));
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    const runs = this.options
      .config()
      .companies.flatMap((c) => this.options.runs.get(c.alias) ?? [])
      .filter((run) => run.gate.open());
    if (runs.length === 0) return;
    const run = runs[this.next % runs.length];
    const company = run.company;
    this.next += 1;
    // counted as a call from the start: a probe that waits for its rate slot is not followed by another
    this.lastCall = Date.now();
    try {
      const timeoutMs = this.options.timeoutMs ?? SERVICE_PROBE_DEFAULTS.timeoutMs;
      const res = await run.rate.send(
        () =>
          this.options.client.listRanges(
            company,
            { nit: company.nit },
            { timeoutMs, signal: this.stop.signal },
          ),
        this.stop.signal,
        () => run.gate.open(),
      );
      this.options.logger.debug(
        { company: company.alias, httpStatus: res.httpStatus, outcome: res.outcome.kind },
        'service probe',
      );
    } catch (err) {
      // its gate closed while it waited for its slot: no probe this time
      if (err instanceof RequestNotStarted) return;
      // the client answers every failure as an outcome; this is a fault of ours, not the service's
      this.options.logger.warn({ err, company: company.alias }, 'service probe failed');
    }
  }

  /** Stops probing and aborts a probe in flight. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.unobserve?.();
    this.stop.abort();
    await this.inFlight;
  }
}
