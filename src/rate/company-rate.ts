/**
 * The one owner of a company's request rate: every request of the company (its submissions and the
 * received-documents pull) takes a slot here, and every 429 the service answers it is told here. It
 * holds the sliding window (`policy/rate-window.ts`, pure), the transit margin added to it, and the
 * slow-down after a 429. One per company, made by the wiring (`CompanyRates`) and handed to the
 * company's sender and to the puller, which borrows slots from it explicitly.
 */
import type { Reservation } from '../policy/rate-window.js';
import { SlidingWindow } from '../policy/rate-window.js';

export interface CompanyRateOptions {
  /** The company's configured `rate.requestsPerSecond` (a fraction is one request every 1/rate s). */
  requestsPerSecond: number;
  /**
   * Added to the window: requests sent a window apart can reach the service closer together than
   * that, by the difference of their transit times, and the service counts arrivals.
   * @defaultValue 40
   */
  transitMarginMs?: number;
  /**
   * After a 429, the company runs at half its rate (less after more 429s: `SlidingWindow.refused`)
   * for this long from the last one; then at its configured rate again.
   * @defaultValue 30000
   */
  slowDownMs?: number;
  /** The clock. @defaultValue Date.now */
  now?: () => number;
}

export const COMPANY_RATE_DEFAULTS = Object.freeze({ transitMarginMs: 40, slowDownMs: 30_000 });

/** What a request needs of the service's answer to tell the rate about it. */
export interface RatedAnswer {
  /** Undefined when no HTTP answer came. */
  httpStatus?: number;
}

export class CompanyRate {
  private window: SlidingWindow;
  private requestsPerSecond: number;
  private readonly transitMarginMs: number;
  private readonly slowDownMs: number;
  private readonly now: () => number;

  constructor(options: CompanyRateOptions) {
    this.transitMarginMs = options.transitMarginMs ?? COMPANY_RATE_DEFAULTS.transitMarginMs;
    this.slowDownMs = options.slowDownMs ?? COMPANY_RATE_DEFAULTS.slowDownMs;
    this.now = options.now ?? Date.now;
    this.requestsPerSecond = options.requestsPerSecond;
    this.window = this.windowFor(options.requestsPerSecond);
  }

  /** A reloaded configuration: a changed rate starts a new window (and ends a slow-down). */
  configure(requestsPerSecond: number): void {
    if (requestsPerSecond === this.requestsPerSecond) return;
    this.requestsPerSecond = requestsPerSecond;
    this.window = this.windowFor(requestsPerSecond);
  }

  /** Milliseconds until a slot would be free (0 = now), taking nothing. */
  waitMs(): number {
    return this.window.peek(this.now());
  }

  /** The limit and window in force now: the configured ones, or fewer requests while slowed down. */
  current(): { limit: number; windowMs: number } {
    return this.window.current(this.now());
  }

  /**
   * Sends one request within a slot: waits for it (no longer than until `signal` aborts; the call
   * then goes ahead and ends at once as aborted), calls `request` with the `onSent` hook the client
   * fires as the request is handed to the socket, and dates the slot by that moment (the service
   * counts arrivals: a request held back after its slot — a connection opening, a ledger commit on
   * this thread — pushes the later ones back rather than bunch up with them). A request that never
   * left (a refused connection) is dated when it ended: a service that is down gets no more
   * connection attempts than requests. A 429 answer slows the company down.
   */
  async send<T extends RatedAnswer>(request: (onSent: () => void) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const slot = await this.reserve(signal);
    let answer: T;
    try {
      answer = await request(() => slot.sent(this.now()));
    } finally {
      slot.sent(this.now()); // no-op once dated by onSent
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
      // The window is read anew each round: a reloaded configuration may have replaced it.
      const r = this.window.tryReserve(this.now());
      if ('reservation' in r) return r.reservation;
      if (signal?.aborted) return { sent: () => undefined };
      await delay(r.wait, signal);
    }
  }

  private windowFor(requestsPerSecond: number): SlidingWindow {
    // Fractional rates (0.5/s) become one request per 2 s.
    return requestsPerSecond >= 1
      ? new SlidingWindow(Math.floor(requestsPerSecond), 1000 + this.transitMarginMs)
      : new SlidingWindow(1, Math.ceil(1000 / requestsPerSecond) + this.transitMarginMs);
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

  constructor(private readonly options: CompanyRatesOptions = {}) {}

  /** The company's one rate (made at `rate.requestsPerSecond` when first asked for). */
  of(company: { alias: string; rate: { requestsPerSecond: number } }): CompanyRate {
    let rate = this.rates.get(company.alias);
    if (rate === undefined) {
      rate = new CompanyRate({ ...this.options, requestsPerSecond: company.rate.requestsPerSecond });
      this.rates.set(company.alias, rate);
    }
    return rate;
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
