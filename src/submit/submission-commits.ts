/**
 * The ledger writes of one company's sender: `sending` marks and verdicts through one CommitBatcher
 * (one transaction, one fsync per batch). A commit that fails (full disk) never rejects into the
 * sender: a mark that did not commit reports 'unsaved' (that request must not leave), and a verdict
 * that did not commit is held in memory and committed before the pause lifts — before anything else
 * of the company is sent, so a document the service numbers never looks unsent.
 */
import { CommitBatcher } from '../ledger/commit-batcher.js';
import type { Ledger } from '../ledger/ledger.js';
import { StorageWatch } from '../ledger/storage-watch.js';
import type { OutcomeRecord } from '../ledger/types.js';
import type { AppLogger } from '../log/logger.js';

/**
 * The longest a verdict of a document with its own number waits for a batch of marks to share its commit
 * (fsync). A crash in that time leaves the document `sending`: resent at the next start, answered as a
 * duplicate (docs/architecture.md, "Submit"). At 100 ms, verdicts alone cost at most 10 commits a second
 * however fast the service answers; the last document of the queue does not wait (CompanySender.settle).
 */
export const VERDICT_WAIT_MS = 100;

type Commit = { mark: number } | { outcome: OutcomeRecord };
/** 'unsaved': the mark could not be committed (full disk): the request must not leave. */
export type Committed = 'sending' | 'duplicate' | 'skipped' | 'unsaved' | boolean;

export interface SubmissionCommitsOptions {
  ledger: Ledger;
  logger: AppLogger;
  company: string;
  /** Documents of these files changed state. */
  onChanged(fileIds: readonly number[]): void;
  /** Shared by every writer of the daemon; one of its own when absent. */
  storage?: StorageWatch;
  now(): number;
}

export class SubmissionCommits {
  readonly storage: StorageWatch;
  private readonly batcher: CommitBatcher<Commit, Committed>;
  private readonly held: { record: OutcomeRecord; after: () => void }[] = [];
  private readonly unhook: () => void;

  constructor(private readonly options: SubmissionCommitsOptions) {
    const { ledger } = options;
    this.storage = options.storage ?? new StorageWatch({ probe: () => ledger.probeWrite(), logger: options.logger });
    this.unhook = this.storage.beforeResume(() => this.commitHeld());
    // Marks and verdicts of the same turn share one transaction (one fsync).
    // Verdicts of numbered documents wait up to VERDICT_WAIT_MS for the next batch of marks (see CompanySender.settle).
    this.batcher = new CommitBatcher<Commit, Committed>((items) => {
      const ids = items.flatMap((i) => ('mark' in i ? [i.mark] : []));
      const records = items.flatMap((i) => ('outcome' in i ? [i.outcome] : []));
      const result = ledger.commitSubmissions(ids, records, options.now());
      if (result.outcomes.fileIds.length > 0) options.onChanged(result.outcomes.fileIds);
      const sending = new Set(result.marks.sending);
      const dup = new Set(result.marks.duplicate);
      const done = new Set(result.outcomes.applied);
      return items.map((i) => ('mark' in i
        ? (sending.has(i.mark) ? 'sending' : dup.has(i.mark) ? 'duplicate' : 'skipped')
        : done.has(i.outcome.id)));
    }, { lazyMs: VERDICT_WAIT_MS });
  }

  /** Writing waits: the disk is full, or verdicts are held. */
  get blocked(): boolean {
    return this.storage.paused || this.held.length > 0;
  }

  /** Marks the document `sending` at the end of this turn. Never rejects (a mark made ahead may wait unawaited). */
  mark(id: number, doc: string | number): Promise<Committed> {
    return this.batcher.add({ mark: id }).catch((err: unknown): Committed => {
      if (!this.storage.report(err, 'submit')) {
        this.options.logger.error({ err, company: this.options.company, doc }, 'submit: the sending mark could not be committed');
      }
      return 'unsaved';
    });
  }

  /** Commits a verdict (with the next batch when `lazy`), then runs `after`; one that cannot be committed is held. Never rejects. */
  verdict(record: OutcomeRecord, after: () => void, lazy = false): Promise<void> {
    const committed = lazy ? this.batcher.addLazy({ outcome: record }) : this.batcher.add({ outcome: record });
    return committed.then(after, (err: unknown) => {
      this.held.push({ record, after });
      this.storage.report(err, 'submit', true);
    });
  }

  /** Takes back marks whose requests never left; false (they stay marked) when that cannot be committed. */
  unmark(ids: readonly number[]): boolean {
    try {
      if (ids.length > 0) this.options.ledger.unmarkSending(ids, this.options.now());
      return true;
    } catch (err) {
      this.storage.report(err, 'submit');
      return false;
    }
  }

  /** Commits the held verdicts; throws while the ledger still cannot be written. */
  commitHeld(): void {
    if (this.held.length === 0) return;
    const result = this.options.ledger.commitSubmissions([], this.held.map((h) => h.record), this.options.now());
    const afters = this.held.splice(0).map((h) => h.after);
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
    this.batcher.flush();
    await new Promise((resolve) => setImmediate(resolve)); // the flushed verdicts' handlers run (a failed one is held)
    try {
      this.commitHeld();
      if (unsent.length > 0) this.options.ledger.unmarkSending(unsent, this.options.now());
    } catch (err) {
      this.options.logger.error({ err, code: 'EDOC_STORAGE_FULL', company: this.options.company, verdicts: this.held.length },
        'stop: answers could not be recorded (disk full); those documents stay sending and are recovered at the next start');
    }
  }
}
