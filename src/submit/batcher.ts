/**
 * Group commit: calls made in the same turn of the event loop are applied in
 * one ledger transaction (one fsync) and each caller is resolved only after it
 * committed. With concurrency C this turns up to C commits into one, which is
 * what keeps the ledger's durability cheap (bench "own overhead").
 */
export class Batcher<T, R> {
  private items: T[] = [];
  private waiters: { resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;

  constructor(private readonly apply: (items: readonly T[]) => R[]) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const items = this.items;
    const waiters = this.waiters;
    this.items = [];
    this.waiters = [];
    this.scheduled = false;
    try {
      const results = this.apply(items);
      waiters.forEach((w, i) => w.resolve(results[i]));
    } catch (err) {
      for (const w of waiters) w.reject(err);
    }
  }
}
