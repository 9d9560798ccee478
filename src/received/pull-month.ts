/**
 * One calendar month of a company's received-documents pull (puller.ts): read until it is known to be
 * complete, each document written once (write-received.ts), its tally kept for the pull's result.
 */
import type { CompanyConfig } from '../config/schema.js';
import type { LedgerPort } from '../ledger/port.js';
import type { Logger } from '../log/logger.js';
import type { RateSender } from '../rate/company-rate.js';
import {
  fetchPage,
  type FailedPage,
  type PageRetry,
  type ReceivedSource,
  type StopReason,
} from './fetch-page.js';
import type { PullError } from './pull-error.js';
import { receivedKey, type ReceivedRecord } from './received-files.js';
import type { ReceivedIndex } from './received-index.js';
import { appendIndexRow, writeReceived } from './write-received.js';
import { formatWindow, type DateWindow } from './window.js';

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

/** What a month's pull reads with: the puller's parts and the pull's options. */
export interface MonthPull {
  company: CompanyConfig;
  ledger: LedgerPort;
  client: ReceivedSource;
  logger: Logger;
  /** outbox/received/<company>/ */
  dir: string;
  perPage: number;
  retry: PageRetry;
  /** Full re-reads of the month allowed while documents keep arriving during the read. */
  maxPasses: number;
  random?: () => number;
  rate?: RateSender;
  signal?: AbortSignal;
  onPage?: (progress: PageProgress) => void;
}

export interface SliceTally {
  pages: number;
  newDocs: number;
  seenBefore: number;
  errors: PullError[];
}

export type SliceEnd =
  { complete: true } | { complete: false; stoppedBy: StopReason | 'incomplete' | 'write' };

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
export async function pullMonth(
  m: MonthPull,
  slice: DateWindow,
  index: ReceivedIndex,
  tally: SliceTally,
): Promise<SliceEnd> {
  const { company, maxPasses } = m;
  const options = m;
  const handled = new Set<string>();
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
  let short: { listed: number; total: number } | undefined;
  for (let pass = 1; pass <= maxPasses; pass += 1) {
    const totals = new Set<number>();
    let totalPages = 1;
    let pagesRead = 0;
    // Records listed in this pass (repeats included, as the service counts them): fewer than its
    // `total` means the pages did not cover the list (a `total_pages` too small, a page cut short),
    // so the next pages are asked for while they hold documents, and the month is not complete.
    let listed = 0;
    let total = 0;
    for (let page = 1; ; page += 1) {
      const fetched = await fetch(m, slice, page);
      if (!fetched.ok) return stop(fetched);
      tally.pages += 1;
      pagesRead += 1;
      totals.add(fetched.total);
      totalPages = fetched.totalPages;
      listed += fetched.data.length;
      total = fetched.total;
      const counts = await handlePage(m, fetched.data, handled, index, tally);
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
      const beyond = listed < total && fetched.data.length > 0 && page < total;
      if (page >= totalPages && !beyond) break;
    }
    short = listed < total ? { listed, total } : undefined;
    // One answer is a consistent snapshot by itself.
    if (pagesRead === 1 && short === undefined) return { complete: true };
    const check = await fetch(m, slice, 1);
    if (!check.ok) return stop(check);
    tally.pages += 1;
    totals.add(check.total);
    const counts = await handlePage(m, check.data, handled, index, tally);
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
    if ((totals.size === 1 && short === undefined) || handled.size >= check.total)
      return { complete: true };
    m.logger.info(
      {
        company: company.alias,
        window: formatWindow(slice),
        pass,
        total: check.total,
        handled: handled.size,
      },
      short === undefined
        ? 'received documents arrived while the month was read; reading it again'
        : 'the pages listed fewer received documents than the service counts; reading the month again',
    );
  }
  tally.errors.push({
    code: 'EDOC_RECEIVED_INCOMPLETE',
    window: slice,
    message:
      short === undefined
        ? `The documents of ${formatWindow(slice)} kept changing over ${maxPasses} reads; the next pull reads them again.`
        : `The service counts ${short.total} documents in ${formatWindow(slice)} but its pages listed ${short.listed}; the next pull reads them again.`,
  });
  return { complete: false, stoppedBy: 'incomplete' };
}

function fetch(m: MonthPull, window: DateWindow, page: number) {
  return fetchPage({
    client: m.client,
    company: m.company,
    window,
    page,
    perPage: m.perPage,
    retry: m.retry,
    logger: m.logger.child({ company: m.company.alias }),
    signal: m.signal,
    random: m.random,
    rate: m.rate,
  });
}

async function handlePage(
  m: MonthPull,
  records: readonly ReceivedRecord[],
  handled: Set<string>,
  index: ReceivedIndex,
  tally: SliceTally,
): Promise<{ newDocs: number; seenBefore: number }> {
  const alias = m.company.alias;
  let newDocs = 0;
  let seenBefore = 0;
  for (const record of records) {
    const key = receivedKey(record);
    if (handled.has(key)) continue;
    handled.add(key);
    // A read here and the record (recordReceived, first one stands) later: a company's pulls never overlap (one
    // scheduler per daemon; `received pull` takes the state folder's lock), and a repeat would only be ignored.
    if (await m.ledger.seenReceived(alias, key)) {
      seenBefore += 1;
      // Recorded, but a crash came before its index row: add the row now.
      if (!index.has(key)) await appendIndexRow(index, record);
      continue;
    }
    const written = await writeReceived({
      dir: m.dir,
      alias,
      record,
      index,
      ledger: m.ledger,
      logger: m.logger,
    });
    tally.errors.push(...written.errors);
    newDocs += 1;
  }
  tally.newDocs += newDocs;
  tally.seenBefore += seenBefore;
  return { newDocs, seenBefore };
}
