/**
 * Pulls the documents a company received (E12) for a date window and writes
 * each one once: outbox/received/<company>/<yyyy-mm>/<number>_<short cufe>.json
 * (+ .pdf), a ledger record, a row of received.csv — in that order, so a crash
 * at any point leaves files that the next run overwrites identically, or a
 * ledger record whose missing index row the next run adds; never a document
 * in the index whose files are missing, never one written twice.
 *
 * The window is read a calendar month at a time, oldest first; the cursor
 * moves to the end of a month only once every document of that month is
 * written. Pages are newest first, so a document arriving mid-read shifts the
 * pages under us: see `pullSlice` for how that is made safe.
 */
import { ledgerNow } from '../policy/ledger-clock.js';
import path from 'node:path';
import type { CompanyConfig, Config } from '../config/schema.js';
import type { LedgerPort } from '../ledger/port.js';
import type { Logger } from '../log/logger.js';
import { colombiaToday, isDate } from '../policy/dates.js';
import type { RateSender } from '../rate/company-rate.js';
import type { PageRetry, ReceivedSource, StopReason } from './fetch-page.js';
import {
  pullMonth,
  type MonthPull,
  type PageProgress,
  type SliceEnd,
  type SliceTally,
} from './pull-month.js';

export type { PageProgress } from './pull-month.js';
import { ReceivedIndex } from './received-index.js';
import type { PullError } from './pull-error.js';
import { writeFailure } from './write-received.js';
import { advancedCursor, formatWindow, monthSlices, type DateWindow } from './window.js';

export interface ReceivedPullerOptions {
  ledger: LedgerPort;
  client: ReceivedSource;
  config: Readonly<Pick<Config, 'received' | 'paths' | 'retry'>>;
  logger: Logger;
  /** Colombia's today (`yyyy-MM-dd`); the cursor never passes it. @defaultValue colombiaToday() */
  today?: () => string;
  /** Page retries. @defaultValue 4 attempts, delays from config.retry */
  retry?: Partial<PageRetry>;
  /** Full re-reads of a month allowed while documents keep arriving during the read. @defaultValue 3 */
  maxPasses?: number;
  /** Jitter source of the backoff. */
  random?: () => number;
}

export interface PullOptions {
  signal?: AbortSignal;
  /** Called after each page is handled (the CLI prints a progress line). */
  onPage?: (progress: PageProgress) => void;
  /** The company's rate every page request borrows a slot of (its run's); unrated when absent (`edoc-bridge received`). */
  rate?: RateSender;
}

export type { PullError } from './pull-error.js';

export interface PullResult {
  company: string;
  window: DateWindow;
  /** Page requests answered (re-reads included). */
  pages: number;
  newDocs: number;
  seenBefore: number;
  /** Requests that failed for good, documents whose PDF was not a PDF, files that could not be written. */
  errors: PullError[];
  /** Every month of the window was read completely. */
  complete: boolean;
  /** Why the pull stopped early, when it did. */
  stoppedBy?: StopReason | 'incomplete' | 'write';
  /** The company's cursor after the pull. */
  cursor: string | undefined;
}

const DEFAULT_ATTEMPTS = 4;
const DEFAULT_MAX_PASSES = 3;

export class ReceivedPuller {
  private readonly indexes = new Map<string, ReceivedIndex>();
  private readonly retry: PageRetry;
  private readonly today: () => string;
  private config: ReceivedPullerOptions['config'];

  constructor(private readonly options: ReceivedPullerOptions) {
    this.config = options.config;
    const { retry } = options.config;
    this.retry = {
      attempts: options.retry?.attempts ?? Math.min(DEFAULT_ATTEMPTS, retry.maxAttempts),
      baseDelayMs: options.retry?.baseDelayMs ?? retry.baseDelayMs,
      maxDelayMs: options.retry?.maxDelayMs ?? retry.maxDelayMs,
    };
    this.today = options.today ?? (() => colombiaToday());
  }

  /** Received settings and outbox path for the next pulls (a configuration reload). */
  setConfig(config: ReceivedPullerOptions['config']): void {
    if (config.paths.outbox !== this.config.paths.outbox) this.indexes.clear();
    this.config = config;
  }

  /** outbox/received/<company>/ */
  companyDir(alias: string): string {
    return path.join(this.config.paths.outbox, 'received', alias);
  }

  /**
   * Pulls every document of `window` (dates `yyyy-MM-dd`, both days included)
   * for one company. Never throws on a service or document problem (they are
   * in the result). A company's pulls must not overlap: its run's pull (company-pull.ts) runs them
   * one after the other, and `edoc-bridge received pull` holds the state folder's lock.
   */
  async pullCompany(
    company: CompanyConfig,
    window: DateWindow,
    options: PullOptions = {},
  ): Promise<PullResult> {
    const alias = company.alias;
    const log = this.options.logger.child({ company: alias });
    const { ledger } = this.options;
    const config = this.config;
    const result: PullResult = {
      company: alias,
      window,
      pages: 0,
      newDocs: 0,
      seenBefore: 0,
      errors: [],
      complete: false,
      cursor: await ledger.getCursor(alias),
    };
    if (!isDate(window.from) || !isDate(window.to) || window.from > window.to) {
      result.errors.push({
        code: 'EDOC_RECEIVED_BAD_WINDOW',
        message: `Not a window of yyyy-MM-dd dates: ${formatWindow(window)}`,
        window,
      });
      result.stoppedBy = 'bad-window';
      return this.finish(log, result);
    }
    for (const slice of monthSlices(window)) {
      const tally: SliceTally = { pages: 0, newDocs: 0, seenBefore: 0, errors: [] };
      let end: SliceEnd;
      try {
        end = await pullMonth(this.month(company, options), slice, await this.index(alias), tally);
      } catch (err) {
        const message = writeFailure(err);
        if (message === undefined) throw err;
        tally.errors.push({ code: 'EDOC_REPORT_WRITE', message, window: slice });
        end = { complete: false, stoppedBy: 'write' };
      }
      result.pages += tally.pages;
      result.newDocs += tally.newDocs;
      result.seenBefore += tally.seenBefore;
      result.errors.push(...tally.errors);
      if (!end.complete) {
        result.stoppedBy = end.stoppedBy;
        return this.finish(log, result);
      }
      const cursor = advancedCursor(result.cursor, config.received.startDate, slice, this.today());
      if (cursor !== undefined) {
        await ledger.setCursor(alias, cursor);
        result.cursor = cursor;
      }
    }
    result.complete = true;
    await ledger.recordPull(alias, ledgerNow(), {
      window: formatWindow(window),
      pages: result.pages,
      new: result.newDocs,
      seenBefore: result.seenBefore,
      errors: result.errors.length,
      cursor: result.cursor ?? null,
    });
    return this.finish(log, result);
  }

  private finish(log: Logger, result: PullResult): PullResult {
    const fields = {
      window: formatWindow(result.window),
      from: result.window.from,
      to: result.window.to,
      pages: result.pages,
      new: result.newDocs,
      seenBefore: result.seenBefore,
      errors: result.errors.length,
      complete: result.complete,
      cursor: result.cursor ?? null,
      ...(result.stoppedBy === undefined ? {} : { stoppedBy: result.stoppedBy }),
    };
    // A refused key is the caller's to report, once: the scheduler pauses the company, the CLI exits 3.
    if (result.stoppedBy === 'unauthorized') log.debug(fields, 'received pull refused (401)');
    else if (result.stoppedBy === 'aborted') log.info(fields, 'received pull stopped');
    else if (result.complete) log.info(fields, 'received pull finished');
    else {
      // The error that stopped the pull is the last one recorded.
      const stop = result.errors.at(-1);
      log.error(
        { ...fields, code: stop?.code, err: stop?.message },
        'received pull did not finish',
      );
    }
    return result;
  }

  private month(company: CompanyConfig, options: PullOptions): MonthPull {
    return {
      company,
      ledger: this.options.ledger,
      client: this.options.client,
      logger: this.options.logger,
      dir: this.companyDir(company.alias),
      perPage: this.config.received.perPage,
      retry: this.retry,
      maxPasses: this.options.maxPasses ?? DEFAULT_MAX_PASSES,
      ...(this.options.random === undefined ? {} : { random: this.options.random }),
      ...(options.rate === undefined ? {} : { rate: options.rate }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onPage === undefined ? {} : { onPage: options.onPage }),
    };
  }

  private async index(alias: string): Promise<ReceivedIndex> {
    const cached = this.indexes.get(alias);
    const index =
      cached === undefined
        ? await ReceivedIndex.open(this.companyDir(alias))
        : await cached.refreshed();
    this.indexes.set(alias, index);
    return index;
  }
}
