/**
 * Runs the received-documents pull of every company on its own timer, every
 * `received.every`, for the window `cursor − lookbackDays … today` (Colombia).
 * Each company is independent: one that fails or is refused never delays the
 * others. A 401 pauses that company with one error line until `resume(alias)`
 * or `reload(config)` (the key was fixed); other failures just wait for the
 * next tick, the cursor unmoved so nothing is skipped.
 */
import type { CompanyConfig, Config } from '../config/schema.js';
import type { LedgerPort } from '../ledger/port.js';
import type { Logger } from '../log/logger.js';
import { colombiaToday } from '../policy/dates.js';
import type { CompanyRates } from '../rate/company-rate.js';
import type { PageRetry, ReceivedSource } from './fetch-page.js';
import { ReceivedPuller, type PullResult } from './puller.js';
import { formatWindow, scheduledWindow } from './window.js';

export interface ReceivedSchedulerOptions {
  ledger: LedgerPort;
  client: ReceivedSource;
  config: Readonly<Config>;
  logger: Logger;
  /** Colombia's today. @defaultValue colombiaToday() */
  today?: () => string;
  /** Page retries within one tick. @defaultValue 4 attempts, delays from config.retry */
  retry?: Partial<PageRetry>;
  /** Delay of each company's first pull after start(). @defaultValue 0 */
  firstDelayMs?: number;
  /** Each company's rate, shared with its submissions: every page request borrows a slot of it. */
  rates?: CompanyRates;
  /** Told after each scheduled pull whether it read its window (alerts); `reason` never holds a key or a body. */
  onPull?(company: string, outcome: { ok: true } | { ok: false; reason: string }): void;
  /**
   * Cluster mode: whether a request for the company may start here now (its lease held, not being
   * handed over, renewed recently enough); a company it may not is not pulled (its owner pulls it, with
   * the cursor in the shared ledger). @defaultValue every company
   */
  mayStart?(alias: string): boolean;
}

export class ReceivedScheduler {
  readonly puller: ReceivedPuller;
  private config: Readonly<Config>;
  private readonly today: () => string;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly paused = new Set<string>();
  private readonly abort = new AbortController();
  private generation = 0;
  private started = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: ReceivedSchedulerOptions) {
    this.config = options.config;
    this.today = options.today ?? (() => colombiaToday());
    this.puller = this.makePuller();
  }

  /** Starts each company's timer (its first pull after `firstDelayMs`). Does nothing when received.enabled is false. */
  start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    if (!this.config.received.enabled) {
      this.options.logger.info(
        { enabled: false },
        'received documents pull is disabled (received.enabled: false)',
      );
      return;
    }
    this.options.logger.info(
      { every: this.config.received.every, companies: this.config.companies.map((c) => c.alias) },
      'received documents pull scheduled',
    );
    for (const company of this.config.companies)
      this.schedule(company.alias, this.options.firstDelayMs ?? 0);
  }

  /** Stops the timers, aborts pulls in flight (their cursor stays where it was) and waits for them. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.generation += 1;
      for (const timer of this.timers.values()) clearTimeout(timer);
      this.timers.clear();
      this.abort.abort();
      await Promise.allSettled([...this.inFlight]);
    })();
    return this.closing;
  }

  isPaused(alias: string): boolean {
    return this.paused.has(alias);
  }

  /** Lifts a 401 pause and pulls that company now. Returns false when it was not paused. */
  resume(alias: string): boolean {
    if (!this.paused.delete(alias)) return false;
    this.options.logger.info({ company: alias }, 'received documents pull resumed');
    if (this.started && !this.closing && this.config.received.enabled) this.schedule(alias, 0);
    return true;
  }

  /** A new configuration (keys fixed, companies changed): every pause is lifted and each company pulls now. */
  reload(config: Readonly<Config>): void {
    if (this.closing) return;
    this.config = config;
    this.puller.setConfig(config);
    this.paused.clear();
    this.generation += 1;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    if (!this.started) return;
    if (!config.received.enabled) {
      this.options.logger.info(
        { enabled: false },
        'received documents pull is disabled (received.enabled: false)',
      );
      return;
    }
    for (const company of config.companies) this.schedule(company.alias, 0);
  }

  /**
   * Pulls one company (or every company) now, outside the timers; paused
   * companies are skipped. Resolves with the results of the pulls that ran.
   */
  async pullNow(alias?: string): Promise<PullResult[]> {
    const companies = this.config.companies.filter((c) => alias === undefined || c.alias === alias);
    const results = await Promise.all(companies.map((c) => this.track(this.tick(c))));
    return results.filter((r): r is PullResult => r !== undefined);
  }

  private makePuller(): ReceivedPuller {
    return new ReceivedPuller({
      ledger: this.options.ledger,
      client: this.options.client,
      config: this.config,
      logger: this.options.logger,
      today: this.today,
      retry: this.options.retry,
      ...(this.options.rates ? { rates: this.options.rates } : {}),
    });
  }

  private schedule(alias: string, delayMs: number): void {
    const generation = this.generation;
    const previous = this.timers.get(alias);
    if (previous !== undefined) clearTimeout(previous);
    const timer = setTimeout(() => {
      this.timers.delete(alias);
      const company = this.config.companies.find((c) => c.alias === alias);
      if (company === undefined) return;
      const started = Date.now();
      void this.track(this.tick(company)).finally(() => {
        // A reload or close since this tick started owns the timers now.
        if (generation !== this.generation || this.closing) return;
        this.schedule(alias, Math.max(0, this.config.received.every - (Date.now() - started)));
      });
    }, delayMs);
    this.timers.set(alias, timer);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  /** One pull of one company; never rejects. */
  private async tick(company: CompanyConfig): Promise<PullResult | undefined> {
    const log = this.options.logger.child({ company: company.alias });
    if (this.paused.has(company.alias) || this.closing) {
      log.debug('received pull skipped: company paused');
      return undefined;
    }
    if (this.options.mayStart?.(company.alias) === false) return undefined;
    const { received } = this.config;
    try {
      const window = scheduledWindow({
        cursor: await this.options.ledger.getCursor(company.alias),
        lookbackDays: received.lookbackDays,
        startDate: received.startDate,
        today: this.today(),
      });
      const result = await this.puller.pullCompany(company, window, { signal: this.abort.signal });
      if (result.stoppedBy === 'unauthorized') {
        this.paused.add(company.alias);
        log.error(
          {
            code: 'EDOC_SERVICE_UNAUTHORIZED',
            window: formatWindow(window),
            httpStatus: result.errors[0]?.httpStatus,
          },
          `received documents pull PAUSED for company ${company.alias}: the service refused its API key; ` +
            'fix the key and reload the configuration (SIGHUP) to resume',
        );
      }
      if (result.stoppedBy !== 'aborted') {
        this.options.onPull?.(
          company.alias,
          result.stoppedBy === undefined
            ? { ok: true }
            : {
                ok: false,
                reason: `${result.stoppedBy}${result.errors[0]?.code ? ` (${result.errors[0].code})` : ''}`,
              },
        );
      }
      return result;
    } catch (err) {
      log.error({ err }, 'received pull failed unexpectedly; retried on the next tick');
      this.options.onPull?.(company.alias, { ok: false, reason: 'unexpected error (see the log)' });
      return undefined;
    }
  }
}
