/**
 * The ledger writes of one company's sender: `sending` marks and verdicts through one CommitBatcher
 * (one transaction, one fsync per batch). A commit that fails (full disk) never rejects into the
 * sender: a mark that did not commit reports 'unsaved' (that request must not leave), and a verdict
 * that did not commit is held in memory and committed before the pause lifts — before anything else
 * of the company is sent, so a document the service numbers never looks unsent.
 */
import { isEdocError } from '../errors.js';
import { CommitBatcher } from '../ledger/commit-batcher.js';
import type { LedgerPort } from '../ledger/port.js';
import { StorageWatch } from '../storage/storage-watch.js';
import type { OutcomeRecord } from '../ledger/types.js';
import type { AppLogger } from '../log/logger.js';

type Commit = { mark: number } | { outcome: OutcomeRecord };

/** What committing a document's `sending` mark came to: only `send` lets its request leave. */
export type MarkResult =
  /** Committed `sending`, the attempt counted: send it now. */
  | { readonly to: 'send' }
  /**
   * Another document with its key was accepted meanwhile: committed final `duplicate`, never sent;
   * `otherContent`: with other content than this one (EDOC_ISSUED_OTHER_CONTENT, its message).
   */
  | { readonly to: 'duplicate'; readonly otherContent?: string }
  /** No longer pending (re-queued, settled by an operator): left as it is. */
  | { readonly to: 'not-pending' }
  /** A document with the same key is on its way: left pending, due again a little later. */
  | { readonly to: 'key-in-flight' }
  /** The mark could not be committed (full disk): left pending, and the request must not leave. */
  | { readonly to: 'unsaved' };

/** What committing a verdict came to: `applied` false when the document had left `sending` meanwhile. */
type VerdictResult = { readonly verdict: true; readonly applied: boolean };

const MARKED = {
  send: { to: 'send' },
  duplicate: { to: 'duplicate' },
  notPending: { to: 'not-pending' },
  keyInFlight: { to: 'key-in-flight' },
  unsaved: { to: 'unsaved' },
} as const satisfies Record<string, MarkResult>;

function duplicateMark(otherContent: string | undefined): MarkResult {
  return otherContent === undefined ? MARKED.duplicate : { to: 'duplicate', otherContent };
}

export interface SubmissionCommitsOptions {
  ledger: LedgerPort;
  logger: AppLogger;
  company: string;
  /** Documents of these files changed state. */
  onChanged(fileIds: readonly number[]): void;
  /** Shared by every writer of the daemon; one of its own when absent. */
  storage?: StorageWatch;
  now(): number;
  /** The longest a lazy verdict waits for the next batch of marks. */
  lazyMs: number;
  /** Cluster mode: a commit was refused by the lease fence (the company is no longer this node's). */
  onFenced?(): void;
  /** Shared with the node's other senders (no cluster: `submissionBatcher`); one of its own when absent. */
  batcher?: SubmissionBatcher;
}

/** One transaction for the marks and verdicts gathered in a turn: a company's, or every company's of a node. */
export type SubmissionBatcher = CommitBatcher<Commit, MarkResult | VerdictResult>;

/**
 * The batcher of `SubmissionCommits`. One shared by every company's sender (`batcher`) commits all of
 * them together: one fsync per turn for the node, not one per company (with 200 companies sending at
 * once, per-company batches cost one commit per document or more). Only where no commit can be refused
 * for one company alone: without a cluster (a fence refusal would refuse every company's items).
 */
export function submissionBatcher(
  ledger: LedgerPort,
  options: Pick<SubmissionCommitsOptions, 'onChanged' | 'now' | 'lazyMs'>,
): SubmissionBatcher {
  return new CommitBatcher<Commit, MarkResult | VerdictResult>(
    async (items) => {
      const ids = items.flatMap((i) => ('mark' in i ? [i.mark] : []));
      const records = items.flatMap((i) => ('outcome' in i ? [i.outcome] : []));
      const result = await ledger.commitSubmissions(ids, records, options.now());
      if (result.outcomes.fileIds.length > 0) options.onChanged(result.outcomes.fileIds);
      const sending = new Set(result.marks.sending);
      const dup = new Set(result.marks.duplicate);
      const later = new Set(result.marks.deferred);
      const done = new Set(result.outcomes.applied);
      return items.map((i): MarkResult | VerdictResult =>
        'mark' in i
          ? sending.has(i.mark)
            ? MARKED.send
            : dup.has(i.mark)
              ? duplicateMark(result.marks.otherContent?.get(i.mark))
              : later.has(i.mark)
                ? MARKED.keyInFlight
                : MARKED.notPending
          : { verdict: true, applied: done.has(i.outcome.id) },
      );
    },
    { lazyMs: options.lazyMs },
  );
}

export class SubmissionCommits {
  readonly storage: StorageWatch;
  private readonly batcher: SubmissionBatcher;
  private readonly held: { record: OutcomeRecord; after: () => void }[] = [];
  private readonly unhook: () => void;
  private fenced = false;

  constructor(private readonly options: SubmissionCommitsOptions) {
    const { ledger } = options;
    this.storage =
      options.storage ??
      new StorageWatch({ probe: () => ledger.probeWrite(), logger: options.logger });
    this.unhook = this.storage.beforeResume(() => this.commitHeld());
    // Marks and verdicts of the same turn share one transaction (one fsync): this company's, or with a
    // shared batcher every company's of the node. Verdicts of numbered documents wait up to `lazyMs` for
    // the next batch of marks (see CompanySender.settle).
    this.batcher = options.batcher ?? submissionBatcher(ledger, options);
  }

  /** Writing waits: the disk is full, or verdicts are held. */
  get blocked(): boolean {
    return this.storage.paused || this.held.length > 0;
  }

  /** Marks the document `sending` at the end of this turn. Never rejects (a mark made ahead may wait unawaited). */
  mark(id: number, doc: string | number): Promise<MarkResult> {
    return this.batcher.add({ mark: id }).then(
      (r) => r as MarkResult,
      (err: unknown): MarkResult => {
        if (this.fencedBy(err)) return MARKED.unsaved; // refused: that request never leaves
        if (!this.storage.report(err, 'submit')) {
          this.options.logger.error(
            { err, company: this.options.company, doc },
            'submit: the sending mark could not be committed',
          );
        }
        return MARKED.unsaved;
      },
    );
  }

  /** Commits a verdict (with the next batch when `lazy`), then runs `after`; one that cannot be committed is held. Never rejects. */
  verdict(record: OutcomeRecord, after: () => void, lazy = false): Promise<void> {
    const committed = lazy
      ? this.batcher.addLazy({ outcome: record })
      : this.batcher.add({ outcome: record });
    return committed.then(after, (err: unknown) => {
      // Not ours to commit any more: the document stays `sending`, and the company's new owner recovers
      // it as after a crash (own number: resent, a duplicate answer meaning accepted; else in doubt).
      if (this.fencedBy(err)) return;
      this.held.push({ record, after });
      this.storage.report(err, 'submit', true);
    });
  }

  /** Takes back marks whose requests never left; false (they stay marked) when that cannot be committed. */
  async unmark(ids: readonly number[]): Promise<boolean> {
    try {
      if (ids.length > 0) await this.options.ledger.unmarkSending(ids, this.options.now());
      return true;
    } catch (err) {
      if (this.fencedBy(err)) return true; // the new owner's recovery takes them back
      this.storage.report(err, 'submit');
      return false;
    }
  }

  /** Whether `err` is the lease fence's refusal: said once, and the sender told (it stops starting requests). */
  private fencedBy(err: unknown): boolean {
    if (!isEdocError(err, 'EDOC_CLUSTER_FENCED')) return false;
    if (!this.fenced) {
      this.fenced = true;
      this.options.logger.warn(
        { code: err.code, company: this.options.company },
        "submit: this node lost the company's lease; what it was sending is recovered by the new owner",
      );
      this.options.onFenced?.();
    }
    return true;
  }

  /** Commits the held verdicts; rejects while the ledger still cannot be written. */
  async commitHeld(): Promise<void> {
    if (this.held.length === 0) return;
    // They stay held (the sender stays blocked) until committed; one held while this commit ran waits for the next.
    const held = this.held.slice();
    let result;
    try {
      result = await this.options.ledger.commitSubmissions(
        [],
        held.map((h) => h.record),
        this.options.now(),
      );
    } catch (err) {
      // the lease went while they were held: the new owner recovers those documents; nothing holds the pause
      if (!this.fencedBy(err)) throw err;
      this.held.splice(0, held.length);
      return;
    }
    this.held.splice(0, held.length);
    const afters = held.map((h) => h.after);
    if (result.outcomes.fileIds.length > 0) this.options.onChanged(result.outcomes.fileIds);
    for (const after of afters) after();
  }

  /**
   * At close: what waits in the batch, the held verdicts, then `unsent` marks taken back. What cannot be
   * committed stays `sending`: the next start resends the numbered ones (answered as duplicates when they
   * went) and puts the others in doubt, so nothing is sent twice.
   */
  async close(unsent: readonly number[]): Promise<void> {
    this.unhook();
    if (this.options.storage === undefined) this.storage.close();
    await this.batcher.flush();
    await new Promise((resolve) => setImmediate(resolve)); // the flushed verdicts' handlers run (a failed one is held)
    try {
      await this.commitHeld();
      if (unsent.length > 0) await this.options.ledger.unmarkSending(unsent, this.options.now());
    } catch (err) {
      if (this.fencedBy(err)) return;
      this.options.logger.error(
        {
          err,
          code: 'EDOC_STORAGE_FULL',
          company: this.options.company,
          verdicts: this.held.length,
        },
        'stop: answers could not be recorded (disk full); those documents stay sending and are recovered at the next start',
      );
    }
  }
}
