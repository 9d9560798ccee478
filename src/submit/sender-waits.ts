/**
 * A company sender's waits: the feeder's sleep, which `wake` ends early (new documents may be due), and
 * a request's wait for its turn, which only `stop` ends. After `stop` (close, or the company lost) nothing
 * waits at all: a feeder that was reading the ledger when the stop came would otherwise go to sleep
 * after it, up to idleMs, and the stop awaits the feeder.
 */
import { delay } from '../rate/company-rate.js';

export class SenderWaits {
  private readonly stopping = new AbortController();
  private wakeUp: (() => void) | undefined;
  /** A wake that came while no sleep was under way (the feeder reading the ledger): the next sleep ends at once. */
  private woken = false;

  /** The feeder's wait: `ms`, or until `wake` or `stop`; none after a wake it has not slept through yet. */
  sleep(ms: number): Promise<void> {
    if (this.stopping.signal.aborted || this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        // a sleep that ended by its time is no longer under way: a wake after it is kept for the next
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** A request's wait for its turn (the rate, a full disk, a lease): `ms`, or until `stop`. */
  delay(ms: number): Promise<void> {
    return delay(ms, this.stopping.signal);
  }

  /**
   * Ends the feeder's sleep under way; with none under way, the next one. A wake between the feeder's read
   * of the ledger and its sleep (a file released meanwhile) would otherwise be lost, and the feeder would
   * sleep idleMs with a document due.
   */
  wake(): void {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    if (wake === undefined) this.woken = true;
    else wake();
  }

  /** Ends every wait under way, and every one to come at once. */
  stop(): void {
    this.stopping.abort();
    this.wake();
  }
}

/** Waits until `queue` is idle, at most `timeoutMs`; past it `onTimeout` is called and the idle waited for. */
export async function drain(
  queue: { onIdle(): Promise<void> },
  timeoutMs: number,
  onTimeout: () => void,
): Promise<void> {
  const idle = queue.onIdle();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  if ((await Promise.race([idle, timeout])) === 'timeout') {
    onTimeout();
    await idle;
  }
  clearTimeout(timer);
}
