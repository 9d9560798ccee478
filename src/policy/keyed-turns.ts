/**
 * Jobs that share a key run one after the other, in the order they were given; other keys' jobs run
 * meanwhile. A job that fails does not stop the next one of its key. Used where each company's work
 * must not overlap itself: the report passes of a company's files (its outbox and archive folders are
 * its own) and a cluster node's start and stop of a company.
 */
export class KeyedTurns {
  /** Per key, the end of its last job given so far (never rejects). */
  private readonly last = new Map<string, Promise<void>>();

  /** Runs `job` after the jobs given before it under `key`; resolves or rejects as the job does. */
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

  /** Resolves once every job given so far has ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.last.values()]);
  }
}
