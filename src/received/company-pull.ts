/**
 * One company's received-documents pull, on its own timer every `received.every`, for the window
 * `cursor − lookbackDays … today` (Colombia). The company's run (company/) owns it: started and
 * stopped with the run, so it pulls only while this process runs the company, and a pull starts only
 * while the run's gate is open. A 401 pauses the company (its run's `CompanyPause`, shared with its
 * sender: a 401 to a submission stops the pull as well) until `resume()` or `reload()` (the key was
 * fixed); other failures just wait for the next tick, the cursor unmoved so nothing is skipped. Its
 * pulls run one at a time: a `pullNow` while a scheduled pull runs waits for it.
 */
import type { CompanyConfig, Config } from '../config/schema.js';
import type { LedgerPort } from '../ledger/port.js';
import type { Logger } from '../log/logger.js';
import { colombiaToday } from '../policy/dates.js';
import { CompanyPause } from '../rate/company-pause.js';
import { gatedRate, type CompanyRate } from '../rate/company-rate.js';
import type { PullResult, ReceivedPuller } from './puller.js';
import { formatWindow, scheduledWindow } from './window.js';

export interface CompanyPullOptions {
  ledger: LedgerPort;
  /** The process's puller (its client, retries and outbox indexes), shared by every company's pull. */
  puller: ReceivedPuller;
  logger: Logger;
  /** The company as configured now (a reload replaces it). */
  company(): CompanyConfig;
  /** The configuration in force (`received.*`; a reload replaces it). */
  config(): Readonly<Config>;
  /** The run's gate: a pull starts only while it is open (cluster: the lease held and renewed in time). */
  gate: { open(): boolean };
  /** The company's one rate (its run's, shared with its sender): every page request takes a slot of it. */
  rate?: CompanyRate;
  /** The company's 401 pause (its run's, shared with its sender). One of its own when absent. */
  pause?: CompanyPause;
  /** Colombia's today. @defaultValue colombiaToday() */
  today?: () => string;
  /** Delay of the first pull after start(). @defaultValue 0 */
  firstDelayMs?: number;
  /** Told after each scheduled pull whether it read its window (alerts); `reason` never holds a key or a body. */
  onPull?(company: string, outcome: { ok: true } | { ok: false; reason: string }): void;
}

export class CompanyPull {
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly pause: CompanyPause;
  /** The pull under way: the next one starts after it (a company's pulls never overlap). */
  private last: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();
  private readonly today: () => string;
  private generation = 0;
  private started = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: CompanyPullOptions) {
    this.today = options.today ?? (() => colombiaToday());
    this.pause = options.pause ?? new CompanyPause();
  }

  get alias(): string {
    return this.options.company().alias;
  }

  /** Starts its timer (the first pull after `firstDelayMs`); nothing when received.enabled is false. */
  start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    if (this.options.config().received.enabled) this.schedule(this.options.firstDelayMs ?? 0);
  }

  /** Stops the timer, aborts a pull in flight (its cursor stays where it was) and waits for it. Safe to call twice. */
  stop(): Promise<void> {
    this.closing ??= (async () => {
      this.generation += 1;
      clearTimeout(this.timer);
      this.timer = undefined;
      this.abort.abort();
      await Promise.allSettled([...this.inFlight]);
    })();
    return this.closing;
  }

  get isPaused(): boolean {
    return this.pause.paused !== undefined;
  }

  /** Lifts a 401 pause and pulls now. Returns false when it was not paused. */
  resume(): boolean {
    if (!this.pause.resume()) return false;
    this.options.logger.info({ company: this.alias }, 'received documents pull resumed');
    if (this.started && !this.closing && this.options.config().received.enabled) this.schedule(0);
    return true;
  }

  /**
   * A new configuration (the key fixed, `received.*` changed): the pause is lifted (unless `resume` is
   * false: the reload left what the service refused as it was) and it pulls now.
   */
  reload(_company?: CompanyConfig, resume = true): void {
    if (this.closing) return;
    if (resume) this.pause.resume();
    this.generation += 1;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.started && this.options.config().received.enabled) this.schedule(0);
  }

  /** Pulls now, outside the timer; nothing when paused or stopped. */
  pullNow(): Promise<PullResult | undefined> {
    return this.track(() => this.tick());
  }

  private schedule(delayMs: number): void {
    const generation = this.generation;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const started = Date.now();
      void this.track(() => this.tick()).finally(() => {
        // A reload or stop since this tick started owns the timer now.
        if (generation !== this.generation || this.closing) return;
        const every = this.options.config().received.every;
        this.schedule(Math.max(0, every - (Date.now() - started)));
      });
    }, delayMs);
  }

  /** Runs `pull` after the pull under way, tracked until it ends. */
  private track<T>(pull: () => Promise<T>): Promise<T> {
    const work = this.last.then(pull);
    this.last = work.catch(() => undefined);
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  /** One pull; never rejects. */
  private async tick(): Promise<PullResult | undefined> {
    const company = this.options.company();
    const log = this.options.logger.child({ company: company.alias });
    if (this.pause.paused !== undefined || this.closing) {
      log.debug('received pull skipped: company paused');
      return undefined;
    }
    if (!this.options.gate.open()) return undefined;
    const { received } = this.options.config();
    try {
      const window = scheduledWindow({
        cursor: await this.options.ledger.getCursor(company.alias),
        lookbackDays: received.lookbackDays,
        startDate: received.startDate,
        today: this.today(),
      });
      const result = await this.options.puller.pullCompany(company, window, {
        signal: this.abort.signal,
        ...(this.options.rate === undefined
          ? {}
          : { rate: gatedRate(this.options.rate, () => this.options.gate.open()) }),
      });
      const reason = `HTTP ${result.errors[0]?.httpStatus ?? 401}: the API key was refused`;
      if (result.stoppedBy === 'unauthorized' && this.pause.pause(reason, 'received')) {
        log.error(
          {
            code: 'EDOC_SERVICE_UNAUTHORIZED',
            window: formatWindow(window),
            httpStatus: result.errors[0]?.httpStatus,
          },
          `received documents pull PAUSED for company ${company.alias}: the service refused its API key; ` +
            'its submissions are paused too; fix the key and reload the configuration (SIGHUP) to resume',
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
