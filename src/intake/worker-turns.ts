/**
 * Which of the intake worker's reads may work now. Every file being taken in is a read job on the one
 * worker; run all at once, they interleave at every await and all end together, so none of their
 * documents can be stored or sent until the worker has read every file, and the main thread, which
 * stores them, waits idle meanwhile and then has all of it to do at once. A few jobs at a time
 * (`TURNS`), first come, first served, keep the two threads working side by side: the first files are
 * stored while the next are read. A job keeps its turn while it reads; from its second batch on, a
 * job that had it `SLICE_MS` while others wait gives way, so a big file's next batch queues behind the
 * files that waited meanwhile and never holds small files back. Its first batch may take up to
 * `FIRST_SLICE_MS` (a file of one batch of simple documents is read to its end in one turn); one that
 * takes longer (500 documents of many rows each) is cut there, so a file of one long batch does not hold
 * the others back either. A job waiting for the main thread to take its batches gives its turn back first.
 */

/** Reads working at once on the intake worker: more than one, so one waiting on the disk leaves the core to another. */
export const TURNS = 4;

/** How long a job keeps its turn while others wait, ms (a batch of 500 invoices takes about 75 ms). */
export const SLICE_MS = 20;

/** How long a job's first batch may keep its turn while others wait, ms (500 one-line invoices take ~75 ms). */
export const FIRST_SLICE_MS = 500;

export class WorkerTurns {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(turns = TURNS) {
    this.free = turns;
  }

  /** Waits for a turn (first come, first served); rejects with the signal's reason if it is aborted first. */
  take(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    if (this.free > 0 && this.waiting.length === 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const go = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const at = this.waiting.indexOf(go);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      this.waiting.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Whether a job whose turn began at `since` (performance.now()) should give it to a waiting one now;
   * `first`: it is still making its first batch (FIRST_SLICE_MS, else SLICE_MS).
   */
  due(since: number, first = false): boolean {
    return (
      this.waiting.length > 0 && performance.now() - since >= (first ? FIRST_SLICE_MS : SLICE_MS)
    );
  }

  /**
   * Gives a turn back: to the longest waiting, or to the free ones. The waiting one goes on at the
   * event loop's next turn, not at once: reads handing turns to each other at once would keep the
   * worker in one unbroken run of promise callbacks, and a read holding a turn while it waits on the
   * disk (a small file being opened) would not get its answer until the others ended.
   */
  give(): void {
    const next = this.waiting.shift();
    if (next !== undefined) setImmediate(next);
    else this.free++;
  }

  /** Turns free now (tests). */
  get available(): number {
    return this.free;
  }

  /** Jobs waiting for a turn (tests). */
  get queued(): number {
    return this.waiting.length;
  }
}
