/**
 * Gathers items and commits them with ONE synchronous call (one transaction, one fsync), then
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
  private readonly maxBatch: number;
  private readonly lazyMs: number;

  /**
   * @param commit receives the batch and returns one result per item, in order; it must commit
   *   before returning (the ledger's methods do).
   */
  constructor(private readonly commit: (items: T[]) => R[], options: CommitBatcherOptions = {}) {
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

  /** Commits what is waiting now (also called by the timers). */
  flush(): void {
    if (this.eager) clearImmediate(this.eager);
    if (this.lazy) clearTimeout(this.lazy);
    this.eager = undefined;
    this.lazy = undefined;
    if (this.items.length === 0) return;
    const items = this.items;
    const waiters = this.waiters;
    this.items = [];
    this.waiters = [];
    let results: R[];
    try {
      results = this.commit(items);
    } catch (err) {
      for (const w of waiters) w.reject(err);
      return;
    }
    waiters.forEach((w, i) => w.resolve(results[i] as R));
  }

  get waiting(): number {
    return this.items.length;
  }

  private push(item: T, lazy: boolean): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.items.length >= this.maxBatch) this.flush();
      else if (!lazy) this.eager ??= setImmediate(() => this.flush());
      else this.lazy ??= setTimeout(() => this.flush(), this.lazyMs);
    });
  }
}
