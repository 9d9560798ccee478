/**
 * How a report pass runs its files: several at once (`eachAtOnce`), and those sharing a key (a
 * company: its outbox and archive folders are its own) one after the other (`KeyedTurns`).
 */

/** `job` for each item, at most `limit` at once, started in order. */
export async function eachAtOnce<T>(
  items: readonly T[],
  limit: number,
  job: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await job(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Jobs of one key run one after the other, in the order they were given; other keys' meanwhile. */
export class KeyedTurns {
  private readonly last = new Map<string, Promise<void>>();

  async run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const run = (this.last.get(key) ?? Promise.resolve()).then(job);
    const ended = run.then(
      () => undefined,
      () => undefined,
    );
    this.last.set(key, ended);
    try {
      return await run;
    } finally {
      if (this.last.get(key) === ended) this.last.delete(key);
    }
  }
}
