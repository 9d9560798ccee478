/**
 * The submit stage of one company: a p-queue for concurrency, a strict sliding
 * window for the request rate, fed from the ledger in small batches so a file
 * of 200,000 documents never has 200,000 pending promises. Every attempt is
 * marked `sending` (committed) before its request leaves, and its outcome is
 * committed before anyone writes the outbox.
 */
import PQueue from 'p-queue';
import type { CompanyConfig, Config, PosKindConfig } from '../config/schema.js';
import type { Ledger } from '../ledger/ledger.js';
import type { DueDocument, MarkSendingResult, OutcomeRecord } from '../ledger/types.js';
import type { AppLogger } from '../log/logger.js';
import { SlidingWindow } from '../policy/rate-window.js';
import type { ServiceClient } from '../service/client.js';
import type { ServiceResponse } from '../service/client-types.js';
import type { DocumentKind } from '../validate/kinds.js';
import { CommitBatcher } from '../ledger/commit-batcher.js';
import { decide } from './decide.js';
import { FINAL_CODES, maybeDelivered, problems, slim } from './outcome-record.js';
import { sendDocument } from './send-document.js';

export interface CompanySenderOptions {
  ledger: Ledger;
  client: ServiceClient;
  company: CompanyConfig;
  retry: Config['retry'];
  pos: PosKindConfig;
  logger: AppLogger;
  /** The input file's name, for POS `tipo` and log lines. */
  fileName(fileId: number): string;
  /** Documents of these files reached a final state (or changed): their reports are due. */
  onChanged(fileIds: readonly number[]): void;
  now?: () => number;
}

type Commit = { mark: number } | { outcome: OutcomeRecord };
type Committed = 'sending' | 'duplicate' | 'skipped' | boolean;

/** After a 429, run at half the rate for this long. */
const SLOW_DOWN_MS = 30_000;

export class CompanySender {
  private company: CompanyConfig;
  private queue: PQueue;
  private window: SlidingWindow;
  private readonly inMemory = new Set<number>();
  private readonly now: () => number;
  private readonly marks: { add(id: number): Promise<'sending' | 'duplicate' | 'skipped'> };
  private readonly outcomes: { add(record: OutcomeRecord): Promise<boolean> };
  private paused = false;
  private unreachable = false;
  private closed = false;
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private readonly aborter = new AbortController();

  constructor(private readonly options: CompanySenderOptions) {
    this.company = options.company;
    this.now = options.now ?? Date.now;
    this.queue = new PQueue({ concurrency: this.company.rate.concurrency });
    this.window = windowFor(this.company);
    // Marks and verdicts of the same turn share one transaction (one fsync).
    const commits = new CommitBatcher<Commit, Committed>((items) => {
      const ids = items.flatMap((i) => ('mark' in i ? [i.mark] : []));
      const records = items.flatMap((i) => ('outcome' in i ? [i.outcome] : []));
      const result = options.ledger.commitSubmissions(ids, records, this.now());
      const marked: MarkSendingResult = result.marks;
      if (result.outcomes.fileIds.length > 0) options.onChanged(result.outcomes.fileIds);
      const sending = new Set(marked.sending);
      const dup = new Set(marked.duplicate);
      const done = new Set(result.outcomes.applied);
      return items.map((i) => ('mark' in i
        ? (sending.has(i.mark) ? 'sending' : dup.has(i.mark) ? 'duplicate' : 'skipped')
        : done.has(i.outcome.id)));
    });
    this.marks = { add: (id) => commits.add({ mark: id }) as Promise<'sending' | 'duplicate' | 'skipped'> };
    this.outcomes = { add: (record) => commits.add({ outcome: record }) as Promise<boolean> };
  }

  get alias(): string {
    return this.company.alias;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /**
   * A slot of this company's request window for another caller (the received-documents
   * puller), so every request of the company counts against one rate.
   */
  acquireSlot(): Promise<void> {
    return this.takeRateSlot();
  }

  start(): void {
    this.loop ??= this.feed();
  }

  /** New documents may be due (a file was read, an operator re-queued work). */
  wake(): void {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    wake?.();
  }

  /** A reloaded configuration: new key, rate or concurrency; a paused company resumes. */
  update(company: CompanyConfig, retry: Config['retry']): void {
    const rateChanged = company.rate.requestsPerSecond !== this.company.rate.requestsPerSecond;
    this.company = company;
    this.options.retry = retry;
    if (rateChanged) this.window = windowFor(company);
    this.queue.concurrency = company.rate.concurrency;
    if (this.paused) {
      this.paused = false;
      this.options.logger.info({ company: company.alias }, 'configuration reloaded: submissions resume');
    }
    this.wake();
  }

  /** Stop feeding; let in-flight requests finish up to `timeoutMs`, then abort them. Idempotent. */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.closed) return this.loop;
    this.closed = true;
    this.queue.clear();
    this.wake();
    const idle = this.queue.onIdle();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutMs); });
    if (await Promise.race([idle, timeout]) === 'timeout') {
      this.options.logger.warn({ company: this.alias, inFlight: this.queue.pending }, 'stop: aborting requests still in flight');
      this.aborter.abort();
      await idle;
    }
    clearTimeout(timer);
    await this.loop;
  }

  private async feed(): Promise<void> {
    while (!this.closed) {
      if (this.paused) {
        await this.sleep(60_000);
        continue;
      }
      const buffer = this.company.rate.concurrency * 2;
      const room = buffer - (this.queue.size + this.queue.pending);
      if (room <= 0) {
        await Promise.race([this.queue.onSizeLessThan(this.company.rate.concurrency), this.sleep(1_000)]);
        continue;
      }
      const due = this.options.ledger.claimDue(this.alias, this.now(), room, this.inMemory);
      if (due.length === 0) {
        const next = this.options.ledger.nextDueAt(this.alias);
        const wait = next === undefined ? 60_000 : Math.max(5, Math.min(next - this.now(), 60_000));
        await this.sleep(wait);
        continue;
      }
      for (const doc of due) {
        this.inMemory.add(doc.id);
        void this.queue.add(() => this.attempt(doc)).catch((err: unknown) => {
          this.options.logger.error({ err, company: this.alias, doc: doc.key ?? doc.id }, 'submit: attempt failed unexpectedly');
        }).finally(() => this.inMemory.delete(doc.id));
      }
    }
  }

  /**
   * Mark, send and settle all inside one slot of the queue. (Marking numbered documents ahead and
   * settling after the slot was free, d5ca8e7, let commits run between a request's rate slot and
   * its write: the bench then saw R + 1 requests in one second in 2 of 3 runs, and no gain in
   * overhead; see docs/benchmarks.md.)
   */
  private async attempt(doc: DueDocument): Promise<void> {
    if (!(await this.prepare(doc))) return;
    const response = await this.send(doc);
    await this.settle(doc, doc.attempts + 1, response);
  }

  /** Waits for room in the rate window, then marks the document `sending`; false when it is not to be sent now. */
  private async prepare(doc: DueDocument): Promise<boolean> {
    if (!(await this.waitForRate())) return false;
    const mark = await this.marks.add(doc.id);
    if (mark === 'duplicate') {
      this.options.onChanged([doc.fileId]);
      this.logFinal(doc, 'duplicate', doc.attempts, 'already accepted; not sent again');
    }
    return mark === 'sending';
  }

  private async send(doc: DueDocument): Promise<ServiceResponse> {
    // Ledger commits queued meanwhile (synchronous fsyncs on this thread) run first: after the slot is
    // taken they would hold the request back, and the service, counting arrivals, would see a burst.
    await new Promise((resolve) => setImmediate(resolve));
    await this.takeRateSlot();
    return sendDocument(this.options.client, this.serviceCompany(), doc.kind as DocumentKind, doc.request, {
      pos: this.options.pos, fileName: this.options.fileName(doc.fileId), options: { signal: this.aborter.signal },
    });
  }

  private async settle(doc: DueDocument, attempt: number, response: ServiceResponse): Promise<void> {
    const { outcome, httpStatus } = response;
    this.noteReachability(response);
    const decision = decide(outcome, httpStatus, {
      ownNumber: doc.ownNumber, attempt, maybeDeliveredBefore: maybeDelivered(doc.lastOutcome), retry: this.options.retry,
    });
    const base = {
      id: doc.id, resultCode: outcome.resultCode === undefined ? null : String(outcome.resultCode),
      httpStatus: httpStatus ?? null, warnings: outcome.warnings,
      response: response.body === '' ? null : response.body,
    };
    if (httpStatus === 429) this.window.slowDown(0.5, this.now() + SLOW_DOWN_MS);
    switch (decision.action) {
      case 'pause':
        // A 401 proves nothing about earlier attempts: keep "may have been delivered" for the resend's verdict.
        await this.outcomes.add({ ...base, state: 'pending', nextAttemptAt: this.now(),
          outcome: slim(outcome, maybeDelivered(doc.lastOutcome)),
          errors: problems('EDOC_SERVICE_UNAUTHORIZED', outcome.messages, outcome.reason), note: 'unauthorized: company paused' });
        this.pause(outcome.reason);
        return;
      case 'retry':
        await this.outcomes.add({ ...base, state: 'pending', nextAttemptAt: this.now() + decision.delayMs,
          outcome: slim(outcome, decision.maybeDelivered), errors: problems('EDOC_SERVICE_TRANSIENT', outcome.messages, outcome.reason) });
        this.options.logger.debug({ company: this.alias, doc: doc.key ?? doc.id, attempt, delayMs: decision.delayMs,
          reason: outcome.reason }, 'transient fault: retry scheduled');
        // The feeder may be asleep with nothing pending (this document was in flight): it must see the new due time.
        this.wake();
        return;
      case 'final': {
        const errors = decision.status === 'accepted' || decision.status === 'duplicate' && outcome.messages.length === 0
          ? [] : problems(outcome.kind === 'unknown' ? 'EDOC_SERVICE_BAD_RESPONSE' : FINAL_CODES[decision.status], outcome.messages, decision.note ?? outcome.reason);
        await this.outcomes.add({ ...base, state: decision.status, outcome: slim(outcome, false), errors,
          ...(decision.note ? { note: decision.note } : {}) });
        this.logFinal(doc, decision.status, attempt, decision.note);
      }
    }
  }

  /** One warning when the service stops answering, one line when it answers again — not one per document. */
  private noteReachability(response: ServiceResponse): void {
    const unanswered = response.httpStatus === undefined && response.outcome.kind === 'transient';
    if (unanswered && !this.unreachable) {
      this.unreachable = true;
      this.options.logger.warn({ code: 'EDOC_SERVICE_UNREACHABLE', company: this.alias, reason: response.outcome.reason },
        'the service is not answering; documents wait and are retried with backoff');
    } else if (!unanswered && response.httpStatus !== undefined && this.unreachable) {
      this.unreachable = false;
      this.options.logger.info({ company: this.alias }, 'the service answers again');
    }
  }

  private pause(reason: string): void {
    if (this.paused) return;
    this.paused = true;
    // One line for the whole company, not one per document: its documents simply wait.
    this.options.logger.error({ code: 'EDOC_SERVICE_UNAUTHORIZED', company: this.alias, reason },
      'the service refused this company\'s credentials: its submissions are paused until the configuration is reloaded (SIGHUP) or the daemon restarts');
  }

  private logFinal(doc: DueDocument, status: string, attempts: number, note?: string): void {
    this.options.logger.info({ file: this.options.fileName(doc.fileId), kind: doc.kind, company: this.alias,
      doc: doc.key ?? `#${doc.index}`, status, attempts, ...(note ? { note } : {}) }, 'document final');
  }

  /**
   * Waits until the window has room, without taking it, so a document does not sit `sending` while
   * it waits for its turn; false when the sender stopped or paused meanwhile.
   */
  private async waitForRate(): Promise<boolean> {
    for (;;) {
      if (this.closed || this.paused) return false;
      const wait = this.window.peek(this.now());
      if (wait === 0) return true;
      await delay(wait);
    }
  }

  /**
   * Takes the slot right before the request leaves: the service counts arrivals, so the window must
   * hold send times, not the moments marking began (a slow `sending` commit would bunch requests
   * together). The document is already `sending`, so it waits (at most one window) rather than give up.
   */
  private async takeRateSlot(): Promise<void> {
    for (;;) {
      const wait = this.window.tryAcquire(this.now());
      if (wait === 0) return;
      await delay(wait);
    }
  }

  private serviceCompany(): { id: number; apiKey: string; userId?: number } {
    const c = this.company;
    return c.userId === undefined ? { id: c.id, apiKey: c.apiKey } : { id: c.id, apiKey: c.apiKey, userId: c.userId };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}

/**
 * Requests started a window apart can reach the service closer together than that, by the difference
 * of their transit times; the service counts arrivals, so our window is this much longer.
 */
const RATE_MARGIN_MS = 50;

function windowFor(company: CompanyConfig): SlidingWindow {
  // Fractional rates (0.5/s) become one request per 2 s.
  const rps = company.rate.requestsPerSecond;
  return rps >= 1
    ? new SlidingWindow(Math.floor(rps), 1000 + RATE_MARGIN_MS)
    : new SlidingWindow(1, Math.ceil(1000 / rps) + RATE_MARGIN_MS);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
