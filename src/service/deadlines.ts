/**
 * The calls' deadlines, shared: one AbortSignal for every call started within the same short slice
 * of time with the same timeout (and the same caller's signal), instead of an AbortController, a timer
 * and a listener of its own per call — at ~2,000 requests a second those were about a tenth of the
 * client's own time on the main thread (docs/benchmarks.md, fourth pass).
 *
 * A call started at `t` is aborted between `timeoutMs` and `timeoutMs + slice` after it started, where
 * the slice is a twentieth of the timeout (at most 1 s, at least 1 ms): never earlier than its timeout,
 * at most 5 % later; an answer already in its socket when the deadline passes is read first. A call
 * that ended has let go of the signal (undici removes its listener), so a slice's abort only reaches
 * the calls of that slice still waiting for their answer.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';

interface Slice {
  controller: AbortController;
  timer: NodeJS.Timeout;
}

const MAX_SLICE_MS = 1_000;
/** setTimeout's longest delay: a longer one fires at once (a `service.timeoutMs` of a month must not abort every call). */
const MAX_TIMER_MS = 2_147_483_647;

/** The error a call's deadline aborts it with: `ETIMEDOUT`, as a timeout of the socket's own says. */
export function deadlineError(timeoutMs: number): Error {
  return Object.assign(new Error(`no complete answer within ${timeoutMs} ms`), {
    code: 'ETIMEDOUT',
  });
}

export class Deadlines {
  /** Slices of calls without a caller's signal, by timeout and slice. */
  private readonly open = new Map<string, Slice>();
  /** Slices of calls with a caller's signal, per signal (one that aborts ends its slices at once). */
  private readonly byCaller = new WeakMap<AbortSignal, Map<string, Slice>>();

  /** `now`: a monotonic clock (a wall clock set back would hand a new call an older slice's, earlier, deadline). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The signal for a call starting now: aborted at its deadline, or as soon as `caller` aborts. */
  signal(timeoutMs: number, caller?: AbortSignal): AbortSignal {
    if (caller?.aborted === true) return caller;
    const sliceMs = Math.min(MAX_SLICE_MS, Math.max(1, Math.floor(timeoutMs / 20)));
    const index = Math.floor(this.now() / sliceMs);
    const key = `${timeoutMs}/${index}`;
    const slices = caller === undefined ? this.open : this.slicesOf(caller);
    const found = slices.get(key);
    if (found !== undefined) return found.controller.signal;
    return this.start(slices, key, timeoutMs, (index + 1) * sliceMs + timeoutMs - this.now())
      .controller.signal;
  }

  /**
   * A caller's slices, with ONE listener on its signal for all of them: a long-lived signal (a sender's,
   * for its whole life) gets no listener per slice, which would pass Node's warning of 10 per signal.
   */
  private slicesOf(caller: AbortSignal): Map<string, Slice> {
    let slices = this.byCaller.get(caller);
    if (slices === undefined) {
      const mine = new Map<string, Slice>();
      caller.addEventListener(
        'abort',
        () => {
          for (const slice of mine.values()) {
            clearTimeout(slice.timer);
            slice.controller.abort(caller.reason);
          }
          mine.clear();
        },
        { once: true },
      );
      this.byCaller.set(caller, mine);
      slices = mine;
    }
    return slices;
  }

  private start(slices: Map<string, Slice>, key: string, timeoutMs: number, inMs: number): Slice {
    const controller = new AbortController();
    // every call of the slice listens to it while it waits: many at once is the point, not a leak
    setMaxListeners(0, controller.signal);
    const timer = setTimeout(
      () => {
        if (slices.get(key) === slice) slices.delete(key);
        // Node runs expired timers before it reads the sockets: after the process stood still past
        // the deadline (SIGSTOP, a suspended machine, a blocked thread), the answers that came in
        // meanwhile are read first (setImmediate runs after the poll), and only the calls still
        // waiting are aborted. Aborting at once would discard answers that came in time, and a
        // numbered document sent again would be refused as a repeated number and left in doubt.
        setImmediate(() => controller.abort(deadlineError(timeoutMs)));
      },
      Math.min(MAX_TIMER_MS, Math.max(0, inMs)),
    );
    // A call in flight keeps the process alive by its socket; the deadline alone must not. It is never
    // cleared early: calls still in flight when the client closes keep their deadline (pool.close waits).
    timer.unref();
    const slice: Slice = { controller, timer };
    slices.set(key, slice);
    return slice;
  }
}
