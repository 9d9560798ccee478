/**
 * The one owner of a company's request rate: every request of the company (its submissions and the
 * received-documents pull) takes a slot here, and every 429 the service answers it is told here. It
 * holds the sliding window (`policy/rate-window.ts`, pure), whose slots are dated when their request
 * ENDS (so the cap holds at the service whatever the transit times: see `Reservation`), the slow-down
 * after a 429, and the quiet time after a take-over (cluster: the last owner's requests are not in this
 * window). One per company, made by the wiring (`CompanyRates`) and handed to the company's sender, to
 * the puller, the range watch and the idle probe, which borrow slots from it explicitly.
 */
import { performance } from 'node:perf_hooks';
import type { Reservation } from '../policy/rate-window.js';
import { SlidingWindow } from '../policy/rate-window.js';

export interface CompanyRateOptions {
  /** The company's configured `rate.requestsPerSecond` (a fraction is one request every 1/rate s). */
  requestsPerSecond: number;
  /**
   * Added to the window. Slots are dated by their request's end, which is never before its arrival,
   * so no transit time needs a margin, nor does a service clock that counts whole milliseconds (its
   * stamps floor both arrivals alike); this one covers the service's clock running at another rate
   * than ours (a slewed clock: 0.5 ms a second at most).
   * @defaultValue 1
   */
  marginMs?: number;
  /**
   * After a 429, the company runs at half its rate (less after more 429s: `SlidingWindow.refused`)
   * for this long from the last one; then at its configured rate again.
   * @defaultValue 30000
   */
  slowDownMs?: number;
  /** The clock, monotonic (a wall clock stepped forward would free slots early). @defaultValue performance.now */
  now?: () => number;
}

export const COMPANY_RATE_DEFAULTS = Object.freeze({ marginMs: 1, slowDownMs: 30_000 });

/** What sends within a company's rate (`CompanyRate`, or one with its gate: `gatedRate`). */
export interface RateSender {
  send<T extends RatedAnswer>(request: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/**
 * `CompanyRate.send`'s refusal when `mayStart` said no once the slot came: the request never left.
 */
export class RequestNotStarted extends Error {
  constructor() {
    super('the request was not started: the company may not start one now');
    this.name = 'RequestNotStarted';
  }
}

/** The rate whose every request starts only while `mayStart` says so (`RequestNotStarted` otherwise). */
export function gatedRate(rate: CompanyRate, mayStart: () => boolean): RateSender {
  return { send: (request, signal) => rate.send(request, signal, mayStart) };
}

/** What a request needs of the service's answer to tell the rate about it. */
export interface RatedAnswer {
  /** Undefined when no HTTP answer came. */
  httpStatus?: number;
}

export class CompanyRate {
  private readonly window: SlidingWindow;
  private requestsPerSecond: number;
  private readonly marginMs: number;
  private readonly slowDownMs: number;
  private readonly now: () => number;
  /** No request starts before this (a take-over's quiet time, `holdFor`). */
  private quietUntil = Number.NEGATIVE_INFINITY;
  /** Requests in flight, and when the last one ended (this clock). */
  private inFlight = 0;
  private lastEnd = Number.NEGATIVE_INFINITY;

  constructor(options: CompanyRateOptions) {
    this.marginMs = options.marginMs ?? COMPANY_RATE_DEFAULTS.marginMs;
    this.slowDownMs = options.slowDownMs ?? COMPANY_RATE_DEFAULTS.slowDownMs;
    this.now = options.now ?? (() => performance.now());
    this.requestsPerSecond = options.requestsPerSecond;
    const { limit, windowMs } = this.shapeFor(options.requestsPerSecond);
    this.window = new SlidingWindow(limit, windowMs);
  }

  /**
   * A reloaded configuration: a changed rate applies to the same window (its requests, ended and in
   * flight, still count: `SlidingWindow.reconfigure`), and ends a slow-down.
   */
  configure(requestsPerSecond: number): void {
    if (requestsPerSecond === this.requestsPerSecond) return;
    this.requestsPerSecond = requestsPerSecond;
    const { limit, windowMs } = this.shapeFor(requestsPerSecond);
    this.window.reconfigure(limit, windowMs);
  }

  /** Milliseconds until a slot would be free (0 = now), taking nothing. */
  waitMs(): number {
    const now = this.now();
    return Math.max(this.window.peek(now), Math.ceil(this.quietUntil - now));
  }

  /**
   * How long the company has had no request in flight: 0 while one is, Infinity when none was ever sent
   * (cluster: a lease released after its drain tells the next owner its last request ended this long ago).
   */
  quietForMs(): number {
    if (this.inFlight > 0) return 0;
    return this.lastEnd === Number.NEGATIVE_INFINITY
      ? Number.POSITIVE_INFINITY
      : Math.max(0, this.now() - this.lastEnd);
  }

  /** The length of one window of the rate in force (a take-over waits this long after the last owner's end). */
  windowMs(): number {
    return this.current().windowMs;
  }

  /**
   * No request of the company starts for `ms` from now (cluster: another node sent for the company until
   * a moment ago, and its requests are not in this window). Only ever lengthens a hold.
   */
  holdFor(ms: number): void {
    if (ms > 0) this.quietUntil = Math.max(this.quietUntil, this.now() + ms);
  }

  /** The limit and window in force now: the configured ones, or fewer requests while slowed down. */
  current(): { limit: number; windowMs: number } {
    return this.window.current(this.now());
  }

  /**
   * Sends one request within a slot: waits for it (no longer than until `signal` aborts; the call
   * then goes ahead and ends at once as aborted), calls `request`, and dates the slot by the moment
   * its answer came (the service counts arrivals, and an arrival is never after its answer: see
   * `Reservation`). A request that never left (a refused connection) is dated when it ended too: a
   * service that is down gets no more connection attempts than requests. A 429 answer slows the
   * company down.
   */
  async send<T extends RatedAnswer>(
    request: () => Promise<T>,
    signal?: AbortSignal,
    mayStart?: () => boolean,
  ): Promise<T> {
    const slot = await this.reserve(signal);
    // Asked once the slot came, just before the request leaves: the wait for a slot may outlast the
    // company's gate (a lease not renewed in time, as after a frozen process). The slot counts as used.
    if (mayStart !== undefined && signal?.aborted !== true && !mayStart()) {
      slot.ended(this.now());
      throw new RequestNotStarted();
    }
    let answer: T;
    this.inFlight += 1;
    try {
      answer = await request();
    } finally {
      this.inFlight -= 1;
      this.lastEnd = this.now();
      slot.ended(this.lastEnd);
    }
    if (answer.httpStatus === 429) this.refused();
    return answer;
  }

  /** The service refused a request of this company for its rate (HTTP 429). */
  refused(): void {
    const now = this.now();
    this.window.refused(now, now + this.slowDownMs);
  }

  private async reserve(signal?: AbortSignal): Promise<Reservation> {
    for (;;) {
      if (signal?.aborted) return { ended: () => undefined };
      const now = this.now();
      if (now < this.quietUntil) {
        await delay(Math.ceil(this.quietUntil - now), signal);
        continue;
      }
      // The window's limit is read anew each round: a reload may have changed it.
      const r = this.window.tryReserve(now);
      if ('reservation' in r) return r.reservation;
      await delay(r.wait, signal);
    }
  }

  private shapeFor(requestsPerSecond: number): { limit: number; windowMs: number } {
    // Fractional rates (0.5/s) become one request per 2 s.
    return requestsPerSecond >= 1
      ? { limit: Math.floor(requestsPerSecond), windowMs: 1000 + this.marginMs }
      : { limit: 1, windowMs: Math.ceil(1000 / requestsPerSecond) + this.marginMs };
  }
}

/** Per-rate options shared by every company's rate. */
export type CompanyRatesOptions = Omit<CompanyRateOptions, 'requestsPerSecond'>;

/**
 * The rates of every company, one each, made on first use: the place the wiring asks. A company
 * removed by a reload and added again gets its rate back, history and slow-down included. A
 * reloaded rate is applied by the company's sender (`CompanyRate.configure`), not here: a borrower
 * still holding the old configuration (a pull that began before the reload) must not set it back.
 */
export class CompanyRates {
  private readonly rates = new Map<string, CompanyRate>();
  /** Take-over holds of companies whose rate is not made yet: their last owner's last possible start (this clock). */
  private readonly pending = new Map<string, number>();
  /** `previousRun`'s last start of every company (this clock). */
  private everyFrom = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;

  constructor(private readonly options: CompanyRatesOptions = {}) {
    this.now = options.now ?? (() => performance.now());
  }

  /** The company's one rate (made at `rate.requestsPerSecond` when first asked for). */
  of(company: { alias: string; rate: { requestsPerSecond: number } }): CompanyRate {
    let rate = this.rates.get(company.alias);
    if (rate === undefined) {
      rate = new CompanyRate({
        ...this.options,
        requestsPerSecond: company.rate.requestsPerSecond,
      });
      this.rates.set(company.alias, rate);
      const lastStart = Math.max(
        this.pending.get(company.alias) ?? Number.NEGATIVE_INFINITY,
        this.everyFrom,
      );
      this.pending.delete(company.alias);
      if (lastStart !== Number.NEGATIVE_INFINITY)
        rate.holdFor(lastStart - this.now() + rate.windowMs());
    }
    return rate;
  }

  /** How long the company has had no request in flight here (`CompanyRate.quietForMs`; Infinity: none ever). */
  quietForMs(alias: string): number {
    return this.rates.get(alias)?.quietForMs() ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Another run on this state folder sent for every company until as late as `lastStartMs` from now
   * (daemon/run-marks.ts): no request of any company before one window of its rate past that.
   */
  previousRun(lastStartMs: number): void {
    this.everyFrom = Math.max(this.everyFrom, this.now() + lastStartMs);
    for (const rate of this.rates.values()) rate.holdFor(lastStartMs + rate.windowMs());
  }

  /**
   * Cluster: this node just took the company over, and its last owner may have started a request as late
   * as `lastStartMs` from now (negative: in the past; -Infinity: there was none). No request of the
   * company (sender, pull, range watch, probe) starts before one window of its rate past that: the two
   * owners' requests do not share a window at the service.
   */
  tookOver(alias: string, lastStartMs: number): void {
    if (lastStartMs === Number.NEGATIVE_INFINITY) return;
    const rate = this.rates.get(alias);
    if (rate !== undefined) {
      rate.holdFor(lastStartMs + rate.windowMs());
      return;
    }
    this.pending.set(
      alias,
      Math.max(this.pending.get(alias) ?? Number.NEGATIVE_INFINITY, this.now() + lastStartMs),
    );
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
