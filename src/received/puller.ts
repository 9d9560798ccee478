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
import type { CompanyRate, CompanyRates } from '../rate/company-rate.js';
import {
  fetchPage,
  type FailedPage,
  type PageRetry,
  type ReceivedSource,
  type StopReason,
} from './fetch-page.js';
import { receivedKey, type ReceivedRecord } from './received-files.js';
import { ReceivedIndex } from './received-index.js';
import type { PullError } from './pull-error.js';
import { appendIndexRow, writeFailure, writeReceived } from './write-received.js';
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
  /**
   * Each company's rate (the daemon's, shared with its submissions): every page request borrows a
   * slot of it, and a 429 slows the whole company. Without it pages go unrated (`edoc-bridge received`).
   */
  rates?: CompanyRates;
}

export interface PageProgress {
  company: string;
  window: DateWindow;
  page: number;
  totalPages: number;
  total: number;
  /** Documents written from this page. */
  newDocs: number;
  seenBefore: number;
  /** 1 for the first read of the month; higher when documents arrived while it was read. */
  pass: number;
  /** The re-read of page 1 that checks the month did not change while it was read. */
  recheck: boolean;
}

export interface PullOptions {
  signal?: AbortSignal;
  /** Called after each page is handled (the CLI prints a progress line). */
  onPage?: (progress: PageProgress) => void;
  /** The company's rate every page request borrows a slot of (its run's); else `rates.of(company)`. */
  rate?: CompanyRate;
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

interface SliceTally {
  pages: number;
  newDocs: number;
  seenBefore: number;
  errors: PullError[];
}

type SliceEnd =
  { complete: true } | { complete: false; stoppedBy: NonNullable<PullResult['stoppedBy']> };

const DEFAULT_ATTEMPTS = 4;
const DEFAULT_MAX_PASSES = 3;

export class ReceivedPuller {
  private readonly indexes = new Map<string, ReceivedIndex>();
  private readonly running = new Map<string, Promise<unknown>>();
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
   * in the result); pulls of one company run one after the other.
   */
  pullCompany(
    company: CompanyConfig,
    window: DateWindow,
    options: PullOptions = {},
  ): Promise<PullResult> {
    const previous = this.running.get(company.alias) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.pull(company, window, options));
    this.running.set(company.alias, next);
    return next.finally(() => {
      if (this.running.get(company.alias) === next) this.running.delete(company.alias);
    });
  }

  private async pull(
    company: CompanyConfig,
    window: DateWindow,
    options: PullOptions,
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
        end = await this.pullSlice(company, slice, await this.index(alias), tally, options);
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

  /**
   * Reads a month until it is known to be complete. Newest-first pages shift
   * down when a document arrives mid-read: the ones that slide onto the next
   * page are read twice (deduplicated by cufe), but one that lands on a page
   * already read would be missed. Documents are only ever added, so a read
   * whose `total` never changed — from page 1 to a final re-read of page 1 —
   * saw a fixed list and missed nothing; and once the documents handled are as
   * many as the final `total`, nothing can be missing either. Otherwise the
   * month is read again (up to maxPasses), and left incomplete — cursor
   * unmoved, the next pull re-reads it — if it never settles.
   */
  private async pullSlice(
    company: CompanyConfig,
    slice: DateWindow,
    index: ReceivedIndex,
    tally: SliceTally,
    options: PullOptions,
  ): Promise<SliceEnd> {
    const handled = new Set<string>();
    const maxPasses = this.options.maxPasses ?? DEFAULT_MAX_PASSES;
    const stop = (failure: FailedPage): SliceEnd => {
      if (failure.stop !== 'aborted' && failure.code !== undefined) {
        tally.errors.push({
          code: failure.code,
          message: failure.message,
          window: slice,
          httpStatus: failure.httpStatus,
        });
      }
      return { complete: false, stoppedBy: failure.stop };
    };
    for (let pass = 1; pass <= maxPasses; pass += 1) {
      const totals = new Set<number>();
      let totalPages = 1;
      let pagesRead = 0;
      for (let page = 1; page <= totalPages; page += 1) {
        const fetched = await this.fetch(company, slice, page, options);
        if (!fetched.ok) return stop(fetched);
        tally.pages += 1;
        pagesRead += 1;
        totals.add(fetched.total);
        totalPages = fetched.totalPages;
        const counts = await this.handlePage(company.alias, fetched.data, handled, index, tally);
        options.onPage?.({
          company: company.alias,
          window: slice,
          page,
          totalPages,
          total: fetched.total,
          pass,
          recheck: false,
          ...counts,
        });
      }
      // One answer is a consistent snapshot by itself.
      if (pagesRead === 1) return { complete: true };
      const check = await this.fetch(company, slice, 1, options);
      if (!check.ok) return stop(check);
      tally.pages += 1;
      totals.add(check.total);
      const counts = await this.handlePage(company.alias, check.data, handled, index, tally);
      options.onPage?.({
        company: company.alias,
        window: slice,
        page: 1,
        totalPages: check.totalPages,
        total: check.total,
        pass,
        recheck: true,
        ...counts,
      });
      if (totals.size === 1 || handled.size >= check.total) return { complete: true };
      this.options.logger.info(
        {
          company: company.alias,
          window: formatWindow(slice),
          pass,
          total: check.total,
          handled: handled.size,
        },
        'received documents arrived while the month was read; reading it again',
      );
    }
    tally.errors.push({
      code: 'EDOC_RECEIVED_INCOMPLETE',
      window: slice,
      message: `The documents of ${formatWindow(slice)} kept changing over ${maxPasses} reads; the next pull reads them again.`,
    });
    return { complete: false, stoppedBy: 'incomplete' };
  }

  private fetch(company: CompanyConfig, window: DateWindow, page: number, options: PullOptions) {
    return fetchPage({
      client: this.options.client,
      company,
      window,
      page,
      perPage: this.config.received.perPage,
      retry: this.retry,
      logger: this.options.logger.child({ company: company.alias }),
      signal: options.signal,
      random: this.options.random,
      rate: options.rate ?? this.options.rates?.of(company),
    });
  }

  private async handlePage(
    alias: string,
    records: readonly ReceivedRecord[],
    handled: Set<string>,
    index: ReceivedIndex,
    tally: SliceTally,
  ): Promise<{ newDocs: number; seenBefore: number }> {
    let newDocs = 0;
    let seenBefore = 0;
    for (const record of records) {
      const key = receivedKey(record);
      if (handled.has(key)) continue;
      handled.add(key);
      // A read here and the record (recordReceived, first one stands) later: a company's pulls never overlap (one
      // scheduler per daemon; `received pull` takes the state folder's lock), and a repeat would only be ignored.
      if (await this.options.ledger.seenReceived(alias, key)) {
        seenBefore += 1;
        // Recorded, but a crash came before its index row: add the row now.
        if (!index.has(key)) await appendIndexRow(index, record);
        continue;
      }
      const written = await writeReceived({
        dir: this.companyDir(alias),
        alias,
        record,
        index,
        ledger: this.options.ledger,
        logger: this.options.logger,
      });
      tally.errors.push(...written.errors);
      newDocs += 1;
    }
    tally.newDocs += newDocs;
    tally.seenBefore += seenBefore;
    return { newDocs, seenBefore };
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
