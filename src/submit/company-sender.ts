/**
 * The submit stage of one company: a p-queue for concurrency, the company's rate
 * (`rate/company-rate.ts`: a slot per request, dated when its answer comes; 429s slow it),
 * fed from the ledger in batches so a file of 200,000 documents never has 200,000
 * pending promises. Every attempt is marked `sending` (committed) before its
 * request leaves, and its outcome is committed before anyone writes the outbox.
 * Ledger commits are batched: documents with their own number are marked a batch
 * at a time ahead of their turn, and their verdicts ride along with the next
 * batch; documents the service numbers are marked, and settled, one turn each.
 */
import { ledgerNow } from '../policy/ledger-clock.js';
import PQueue from 'p-queue';
import type { CompanyConfig, Config } from '../config/schema.js';
import type { DueDocument } from '../ledger/types.js';
import { CompanyPause } from '../rate/company-pause.js';
import type { CompanyRate } from '../rate/company-rate.js';
import type { ServiceResponse } from '../service/client-types.js';
import {
  pauseView,
  queueDepth,
  senderTuning,
  type CompanySenderOptions,
  type CompanySenderTuning,
  type SenderView,
} from './company-sender-options.js';
import type { Decision } from './decide.js';
import { outcomeRecord } from './outcome-record.js';
import { sendInSlot } from './send-document.js';
import { decideVerdict, readDue } from './sender-reads.js';
import { SenderLog } from './sender-log.js';
import { drain, SenderWaits } from './sender-waits.js';
import { SubmissionCommits, type MarkResult } from './submission-commits.js';

export {
  COMPANY_SENDER_DEFAULTS,
  queueDepth,
  type CompanySenderOptions,
  type CompanySenderTuning,
  type SenderEvent,
  type SenderView,
} from './company-sender-options.js';

export class CompanySender {
  private company: CompanyConfig;
  private queue: PQueue;
  private readonly rate: CompanyRate;
  private readonly tuning: Readonly<CompanySenderTuning>;
  private readonly inMemory = new Set<number>();
  private readonly now: () => number;
  private readonly commits: SubmissionCommits;
  /** Marked `sending` ahead of their turn, request not yet left: taken back if the sender stops first. */
  private readonly markedUnsent = new Set<number>();
  /** The company's 401 pause (its run's, shared with its pull): nothing starts while it holds. */
  private readonly pause: CompanyPause;
  private readonly unwatchPause: () => void;
  /** Cluster mode: the lease fence refused a commit; nothing more starts (the pipeline closes this sender). */
  private lost = false;
  /** Its log lines and events: a document final, the service unreachable. */
  private readonly log: SenderLog;
  private closed = false;
  private loop: Promise<void> | undefined;
  private readonly aborter = new AbortController();
  private readonly waits = new SenderWaits();

  constructor(private readonly options: CompanySenderOptions) {
    this.company = options.company;
    this.tuning = senderTuning(options);
    this.now = options.now ?? ledgerNow;
    this.queue = new PQueue({ concurrency: this.company.rate.concurrency });
    this.rate = options.rate;
    this.rate.configure(this.company.rate.requestsPerSecond);
    this.pause = options.pause ?? new CompanyPause();
    this.log = new SenderLog(options, () => this.alias);
    // a pause by any of the company's calls is told once to the alerts; a resume wakes the feeder
    this.unwatchPause = this.pause.onChange((state) => {
      if (state === undefined) this.wake();
      else this.options.onEvent?.({ type: 'paused', company: this.alias, reason: state.reason });
    });
    this.commits = new SubmissionCommits({
      ledger: options.ledger,
      logger: options.logger,
      company: this.company.alias,
      onChanged: (ids) => options.onChanged(ids),
      now: () => this.now(),
      lazyMs: this.tuning.lazyCommitMs,
      onFenced: () => this.lose(),
      ...(options.commits === undefined ? {} : { batcher: options.commits }),
      ...(options.storage === undefined ? {} : { storage: options.storage }),
    });
  }

  get alias(): string {
    return this.company.alias;
  }

  get isPaused(): boolean {
    return this.pause.paused !== undefined;
  }

  /** Writing is paused by a full disk (or verdicts are held until it can be written). */
  get storageBlocked(): boolean {
    return this.commits.blocked;
  }

  start(): void {
    this.loop ??= this.feed();
  }

  view(): SenderView {
    return {
      alias: this.alias,
      queued: this.queue.size,
      inFlight: this.queue.pending,
      concurrency: this.company.rate.concurrency,
      requestsPerSecond: this.company.rate.requestsPerSecond,
      currentLimit: this.rate.current().limit,
      ...pauseView(this.pause.paused),
      unreachable: this.log.unreachable,
      storageBlocked: this.commits.blocked,
    };
  }

  /** New documents may be due (a file was read, an operator re-queued work). */
  wake(): void {
    this.waits.wake();
  }

  /**
   * A reloaded configuration: new key, rate or concurrency; a paused company resumes unless `resume` is
   * false (the reload left what the service refused as it was: company-runs.ts).
   */
  update(company: CompanyConfig, retry: Config['retry'], resume = true): void {
    this.company = company;
    this.options.retry = retry;
    this.rate.configure(company.rate.requestsPerSecond);
    this.queue.concurrency = company.rate.concurrency;
    if (resume && this.pause.resume()) {
      this.options.logger.info(
        { company: company.alias },
        'configuration reloaded: submissions resume',
      );
    }
    this.wake();
  }

  /** Stop feeding; let in-flight requests finish up to `timeoutMs`, then abort them. Idempotent. */
  async close(timeoutMs = this.tuning.drainTimeoutMs): Promise<void> {
    if (this.closed) return this.loop;
    this.closed = true;
    this.unwatchPause();
    this.waits.stop();
    this.queue.clear();
    await drain(this.queue, timeoutMs, () => {
      this.options.logger.warn(
        { company: this.alias, inFlight: this.queue.pending },
        'stop: aborting requests still in flight',
      );
      this.aborter.abort();
    });
    await this.loop;
    // Verdicts still waiting for a commit, then the marks whose requests never left.
    await this.commits.close([...this.markedUnsent]);
    this.markedUnsent.clear();
  }

  private async feed(): Promise<void> {
    while (!this.closed && !this.lost) {
      const { idleMs, refillAtPerConnection } = this.tuning;
      if (this.held() !== undefined) {
        await this.waits.sleep(
          this.pause.paused !== undefined ? idleMs : this.tuning.storagePollMs,
        );
        continue;
      }
      // Up to queueDepth documents wait in the queue (4C by default, more where the rate sends more in
      // queueAheadMs), claimed (and marked) together once C or fewer are left (the defaults): one commit for
      // many marks, while C queued and C in flight keep the connections busy meanwhile.
      const c = this.company.rate.concurrency;
      const depth = queueDepth(this.company.rate, this.tuning);
      const refillAt = Math.floor(refillAtPerConnection * c);
      if (this.queue.size > refillAt) {
        await Promise.race([
          this.queue.onSizeLessThan(refillAt + 1),
          this.waits.sleep(this.tuning.refillCheckMs),
        ]);
        continue;
      }
      const room = Math.max(1, depth - this.queue.size);
      const read = await readDue(this.options, this.alias, this.now(), room, this.inMemory);
      if (read === undefined) {
        await this.waits.sleep(this.tuning.storagePollMs);
        continue;
      }
      const { due, next } = read;
      if (due.length === 0) {
        const wait = next === undefined ? idleMs : Math.max(5, Math.min(next - this.now(), idleMs));
        await this.waits.sleep(wait);
        continue;
      }
      for (const doc of due) {
        this.inMemory.add(doc.id);
        // A document with its own number is marked ahead of its turn, all of this batch in one commit:
        // resending it after a crash is safe (the service knows the number), so this costs no safety
        // and saves an fsync per request. One numbered by the service is marked just before it leaves.
        const marked = doc.ownNumber ? this.mark(doc) : undefined;
        void this.queue
          .add(() => this.attempt(doc, marked))
          .catch((err: unknown) => {
            this.options.logger.error(
              { err, company: this.alias, doc: doc.key ?? doc.id },
              'submit: attempt failed unexpectedly',
            );
          })
          .finally(() => this.inMemory.delete(doc.id));
      }
    }
  }

  /**
   * Mark (unless marked ahead), wait for the rate, send, settle. Ledger commits may run between a
   * request's rate slot and its socket write (d5ca8e7 saw R + 1 arrivals in a second from that); the
   * slot therefore counts from the write itself, see `sendInSlot`.
   */
  private async attempt(doc: DueDocument, marked?: Promise<MarkResult>): Promise<void> {
    if (!marked && !(await this.waitForRate())) return;
    const mark = await (marked ?? this.mark(doc));
    if (!this.admitted(doc, mark)) {
      // a mark whose commit broke (PostgreSQL: connection cut while committing) may have been applied
      // nonetheless: take it back (only a document still `sending` changes), for its request never left
      if (mark.to === 'unsaved' && !this.lost) await this.unmark(doc);
      else this.markedUnsent.delete(doc.id);
      return;
    }
    for (;;) {
      // (again for one marked just now: a full disk reported meanwhile holds it here, marked, until space returns)
      if (!(await this.waitForRate())) {
        // Stopped or paused before its turn: the request never left. (At close, all at once; lost: the new owner's.)
        if (!this.closed && !this.lost) await this.unmark(doc);
        return;
      }
      this.markedUnsent.delete(doc.id); // from here on it is sent, or settled with why it was not
      const response = await sendInSlot(this.rate, this.options.client, this.company, doc, {
        pos: this.options.pos,
        signal: this.aborter.signal,
        mayStart: () => this.held() === undefined,
      });
      if (response === undefined) {
        // its slot came when it could no longer start (waitForRate's reasons): it waits its turn again
        this.markedUnsent.add(doc.id);
        continue;
      }
      return this.settle(doc, doc.attempts + 1, response);
    }
  }

  private mark(doc: DueDocument): Promise<MarkResult> {
    this.markedUnsent.add(doc.id);
    return this.commits.mark(doc.id, doc.key ?? doc.id);
  }

  private async unmark(doc: DueDocument): Promise<void> {
    // one that cannot be taken back (full disk) stays in markedUnsent: taken back at close
    if (await this.commits.unmark([doc.id])) this.markedUnsent.delete(doc.id);
  }

  /** Whether the mark made the document `sending` (to be sent now); a duplicate is final here. */
  private admitted(doc: DueDocument, mark: MarkResult): boolean {
    if (mark.to === 'duplicate') {
      this.options.onChanged([doc.fileId]);
      this.log.duplicate(doc, mark.otherContent);
    }
    return mark.to === 'send';
  }

  /**
   * Commits the verdict. One of a document with its own number rides along with the next commit
   * (at most a few ms later) and does not hold the queue slot: a crash before that commit leaves it
   * `sending`, flagged "may have been delivered" by recovery, and a repeated-number answer to its
   * resend makes it in-doubt (never issued twice, never a false clash). Any other is committed at
   * the end of this turn, so it cannot end up in doubt for lack of a commit.
   */
  private settle(doc: DueDocument, attempt: number, response: ServiceResponse): Promise<void> {
    this.log.reachability(response);
    const ask = { ownNumber: doc.ownNumber, attempt, retry: this.options.retry };
    const decision = decideVerdict(this.options.ledger, doc, response, ask);
    return decision instanceof Promise
      ? decision.then((d) => this.commitVerdict(doc, attempt, response, d))
      : this.commitVerdict(doc, attempt, response, decision);
  }

  private commitVerdict(
    doc: DueDocument,
    attempt: number,
    response: ServiceResponse,
    decision: Decision,
  ): Promise<void> {
    const { outcome } = response;
    const record = outcomeRecord(doc, response, decision, this.now());
    let after: () => void;
    switch (decision.action) {
      case 'pause':
        // one line for the whole company (none when its pull or another send paused it first)
        if (this.pause.pause(outcome.reason, 'submit')) this.log.unauthorized(outcome.reason);
        return this.commits.verdict(record, () => undefined);
      case 'retry':
        this.log.retry(doc, attempt, decision.delayMs, outcome.reason);
        // The feeder may be asleep with nothing pending (this document was in flight): it must see the new due time.
        after = () => this.wake();
        break;
      case 'final':
        after = () => this.log.decided(doc, attempt, decision, record.errors?.[0]?.code);
    }
    if (!doc.ownNumber) return this.commits.verdict(record, after);
    // The last document in the queue has no batch of marks to ride along with: commit it this turn.
    const last = this.queue.size === 0 && this.queue.pending <= 1;
    void this.commits.verdict(record, after, !last);
    return Promise.resolve();
  }

  /**
   * Waits until the window has room, without taking it, so a document does not sit `sending` while
   * it waits for its turn; false when the sender stopped or paused meanwhile.
   */
  private async waitForRate(): Promise<boolean> {
    for (;;) {
      const held = this.held();
      if (held === 'stop') return false;
      const wait = held === 'wait' ? this.tuning.storagePollMs : this.rate.waitMs();
      if (held === undefined && wait === 0) return true;
      await this.waits.delay(wait);
    }
  }

  /** Why no request may start: 'stop' (stopped, paused, lost) or 'wait' (a full disk, the gate shut). */
  private held(): 'stop' | 'wait' | undefined {
    if (this.closed || this.pause.paused !== undefined || this.lost) return 'stop';
    return this.commits.blocked || !this.options.gate.open() ? 'wait' : undefined;
  }

  private lose(): void {
    if (this.lost) return;
    this.lost = true;
    this.waits.stop();
    this.queue.clear();
    this.options.gate.fenced();
  }
}
