/**
 * A single-consumer async queue: the watcher pushes, the daemon pulls with
 * `for await`, at its own pace. That is the back-pressure: the watcher never
 * calls into the daemon, it only keeps small ReadyFile records waiting.
 * An item can be withdrawn before it is pulled (its file changed or vanished).
 */
export class ReadyQueue<T> implements AsyncIterableIterator<T> {
  private items: { key: string; value: T }[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;

  push(key: string, value: T): void {
    if (this.ended) return;
    if (this.waiter !== undefined) {
      const resolve = this.waiter;
      this.waiter = undefined;
      resolve({ value, done: false });
      return;
    }
    this.items.push({ key, value });
  }

  /** Remove a waiting item (no effect once it was pulled). */
  withdraw(key: string): void {
    const kept = this.items.slice(this.head).filter((item) => item.key !== key);
    this.items = kept;
    this.head = 0;
  }

  get length(): number {
    return this.items.length - this.head;
  }

  end(): void {
    this.ended = true;
    this.items = [];
    this.head = 0;
    if (this.waiter !== undefined) {
      const resolve = this.waiter;
      this.waiter = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const item = this.items[this.head++];
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value: item.value, done: false });
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    if (this.waiter !== undefined)
      return Promise.reject(new Error('ReadyQueue has a single consumer'));
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}
