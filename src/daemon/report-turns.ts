/**
 * How a report pass runs its files: several at once (`eachAtOnce`), and those sharing a key (a
 * company: its outbox and archive folders are its own) one after the other (`KeyedTurns`,
 * policy/keyed-turns.ts).
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

/**
 * The ledger writes of the jobs running at once, started together: a write waits until every job
 * running `within` has one waiting (or has ended), or `waitMs` at most, then all start in one turn,
 * where the SQLite ledger's transactions share one commit (one fsync). Each job still awaits its own
 * write's commit before its next step. A job waiting for its company's turn is not running yet.
 */
export class WritesTogether {
  private readonly waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running = 0;

  constructor(private readonly waitMs = 50) {}

  async within<T>(job: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await job();
    } finally {
      this.running--;
      if (this.waiting.length > 0 && this.waiting.length >= this.running) this.release();
    }
  }

  readonly run = async <T>(write: () => Promise<T>): Promise<T> => {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length >= this.running) this.release();
      else this.timer ??= setTimeout(() => this.release(), this.waitMs);
    });
    return write();
  };

  private release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
