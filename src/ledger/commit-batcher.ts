/**
 * Gathers items added in the same turn of the event loop and commits them with ONE synchronous
 * call (one transaction, one fsync), then resolves each item's promise with its own result. Used for
 * `markSending` (await it, then send — the state is on disk before the request leaves) and for
 * outcomes (await it, then write the outbox). Concurrency C then costs about one fsync per turn
 * instead of one per document.
 */
export class CommitBatcher<T, R> {
  private items: T[] = [];
  private waiters: { resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;

  /**
   * @param commit receives the batch and returns one result per item, in order; it must commit
   *   before returning (the ledger's methods do).
   * @param maxBatch flush at once when this many items wait. @defaultValue 500
   */
  constructor(private readonly commit: (items: T[]) => R[], private readonly maxBatch = 500) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.items.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits what is waiting now (also called by the timer). */
  flush(): void {
    this.scheduled = false;
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
    waiters.forEach((w, i) => w.resolve(results[i]));
  }

  get waiting(): number {
    return this.items.length;
  }
}
