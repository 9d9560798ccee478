/**
 * Gathers items and commits them with ONE call (one transaction, one fsync), then
 * resolves each item's promise with its own result. An eager item (a `sending` mark: await it, then
 * send) is committed at the end of the current turn of the event loop, with everything waiting. A
 * lazy item (a verdict nothing is waiting on but the outbox) may wait up to `lazyMs` for the next
 * eager commit to ride along with. Concurrency C then costs about one fsync per turn, and verdicts
 * add none of their own while marks keep coming.
 */
export interface CommitBatcherOptions {
  /** Commit at once when this many items wait. @defaultValue 500 */
  maxBatch?: number;
  /** The longest a lazy item waits for an eager one. @defaultValue 5 */
  lazyMs?: number;
}

export class CommitBatcher<T, R> {
  private items: T[] = [];
  private waiters: { resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private eager: NodeJS.Immediate | undefined;
  private lazy: NodeJS.Timeout | undefined;
  /** The commit under way: one at a time, so batches commit in the order they were gathered. */
  private running: Promise<void> | undefined;
  /** Something asked for a commit while one was under way: the next one starts as soon as it ends. */
  private again = false;
  private readonly maxBatch: number;
  private readonly lazyMs: number;

  /**
   * @param commit receives the batch and resolves with one result per item, in order, once the batch
   *   is committed (the ledger port's methods do). Commits never overlap: items that arrive while one
   *   runs go with the next, so two batches never race each other (a mark of a key in one batch and
   *   its verdict or another mark of it in the next see each other's effects).
   */
  constructor(
    private readonly commit: (items: T[]) => Promise<R[]>,
    options: CommitBatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.lazyMs = options.lazyMs ?? 5;
  }

  /** Committed at the end of this turn. */
  add(item: T): Promise<R> {
    return this.push(item, false);
  }

  /** Committed with the next eager item, or after `lazyMs` at the latest. */
  addLazy(item: T): Promise<R> {
    return this.push(item, true);
  }

  /**
   * Commits what is waiting now (also called by the timers), at most `maxBatch` items per commit;
   * resolves once everything that waited at the call is committed (or failed: its waiters are rejected).
   */
  flush(): Promise<void> {
    if (this.eager) clearImmediate(this.eager);
    if (this.lazy) clearTimeout(this.lazy);
    this.eager = undefined;
    this.lazy = undefined;
    if (this.running) {
      this.again = true;
      return this.running.then(() => this.flush());
    }
    if (this.items.length === 0) return Promise.resolve();
    const items = this.items.splice(0, this.maxBatch);
    const waiters = this.waiters.splice(0, items.length);
    let committed: Promise<R[]>;
    try {
      committed = this.commit(items);
    } catch (err) {
      committed = Promise.reject(err);
    }
    const run = committed
      .then(
        (results) => {
          this.running = undefined;
          waiters.forEach((w, i) => w.resolve(results[i] as R));
        },
        (err: unknown) => {
          this.running = undefined;
          for (const w of waiters) w.reject(err);
        },
      )
      .then(() => {
        // more than maxBatch waited, or items asked for a commit meanwhile
        if (this.items.length >= this.maxBatch || (this.again && this.items.length > 0)) {
          this.again = false;
          return this.flush();
        }
        this.again = false;
        return undefined;
      });
    this.running = run;
    return run;
  }

  get waiting(): number {
    return this.items.length;
  }

  private push(item: T, lazy: boolean): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.items.length >= this.maxBatch) void this.flush();
      else if (!lazy) this.eager ??= setImmediate(() => void this.flush());
      else this.lazy ??= setTimeout(() => void this.flush(), this.lazyMs);
    });
  }
}
