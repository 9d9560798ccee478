/**
 * The calls' deadlines, shared: one AbortSignal for every call started within the same short slice
 * of time with the same timeout (and the same caller's signal), instead of an AbortController, a timer
 * and a listener of its own per call — at ~2,000 requests a second those were about a tenth of the
 * client's own time on the main thread (docs/benchmarks.md, fourth pass).
 *
 * A call started at `t` is aborted between `timeoutMs` and `timeoutMs + slice` after it started, where
 * the slice is a twentieth of the timeout (at most 1 s, at least 1 ms): never earlier than its timeout,
 * at most 5 % later. A call that ended has let go of the signal (undici removes its listener), so a
 * slice's abort only reaches the calls of that slice still waiting for their answer.
 */
import { setMaxListeners } from 'node:events';

interface Slice {
  controller: AbortController;
  timer: NodeJS.Timeout;
  /** Takes the slice's listener off the caller's signal. */
  unlisten?: () => void;
}

const MAX_SLICE_MS = 1_000;

/** The error a call's deadline aborts it with: `ETIMEDOUT`, as a timeout of the socket's own says. */
export function deadlineError(timeoutMs: number): Error {
  return Object.assign(new Error(`no complete answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
}

export class Deadlines {
  /** Slices of calls without a caller's signal, by timeout and slice. */
  private readonly open = new Map<string, Slice>();
  /** Slices of calls with a caller's signal, per signal (one that aborts ends its slices at once). */
  private readonly byCaller = new WeakMap<AbortSignal, Map<string, Slice>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The signal for a call starting now: aborted at its deadline, or as soon as `caller` aborts. */
  signal(timeoutMs: number, caller?: AbortSignal): AbortSignal {
    if (caller?.aborted === true) return caller;
    const sliceMs = Math.min(MAX_SLICE_MS, Math.max(1, Math.floor(timeoutMs / 20)));
    const index = Math.floor(this.now() / sliceMs);
    const key = `${timeoutMs}/${index}`;
    let slices = this.open;
    if (caller !== undefined) {
      slices = this.byCaller.get(caller) ?? new Map<string, Slice>();
      this.byCaller.set(caller, slices);
    }
    const found = slices.get(key);
    if (found !== undefined) return found.controller.signal;
    return this.start(slices, key, timeoutMs, (index + 1) * sliceMs + timeoutMs - this.now(), caller).controller.signal;
  }

  private start(slices: Map<string, Slice>, key: string, timeoutMs: number, inMs: number, caller?: AbortSignal): Slice {
    const controller = new AbortController();
    // every call of the slice listens to it while it waits: many at once is the point, not a leak
    setMaxListeners(0, controller.signal);
    const end = (reason: unknown): void => {
      clearTimeout(slice.timer);
      slice.unlisten?.();
      if (slices.get(key) === slice) slices.delete(key);
      controller.abort(reason);
    };
    const slice: Slice = { controller, timer: setTimeout(() => end(deadlineError(timeoutMs)), Math.max(0, inMs)) };
    // A call in flight keeps the process alive by its socket; the deadline alone must not. It is never
    // cleared early: calls still in flight when the client closes keep their deadline (pool.close waits).
    slice.timer.unref();
    if (caller !== undefined) {
      const onAbort = (): void => end(caller.reason);
      caller.addEventListener('abort', onAbort, { once: true });
      slice.unlisten = () => caller.removeEventListener('abort', onAbort);
    }
    slices.set(key, slice);
    return slice;
  }
}
