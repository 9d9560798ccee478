/**
 * Whether the intake worker still answers (intake-reader.ts): while it has work it is pinged every
 * second (a quarter of stuckAfter when that is shorter), and one whose last message is older than
 * stuckAfter is stuck. A tick that comes late — this thread did not run: the process was stopped or
 * frozen, the machine suspended, a long step here — starts the silence over: the worker could not be
 * heard in that time either, so such a pause never counts against it. Nor does the time a new worker
 * takes to load its modules (it says so once loaded), up to `LOAD_MS`: on a loaded machine that can
 * take longer than a short stuckAfter, and a worker that has not loaded maps no row.
 */
import { performance } from 'node:perf_hooks';

/** How often a worker with work is asked whether it is there, ms (at most). */
const PING_MS = 1_000;
/** A tick this many periods after the last one came late. */
const LATE_PERIODS = 3;
/** How long a new worker's silence before its first word does not count, ms. */
export const LOAD_MS = 60_000;

export interface WorkerWatchParts {
  /** How long the worker may stay silent, ms (config read.stuckAfter), read at each start and tick. */
  stuckAfterMs: () => number;
  /** Whether the worker has work (else the watch ends itself). */
  busy: () => boolean;
  ping: () => void;
  /** The worker was silent for `silentMs` with work to do; the watch has stopped. */
  stuck: (silentMs: number) => void;
}

export class WorkerWatch {
  private timer: NodeJS.Timeout | undefined;
  /** performance.now() of the worker's last message, and of the last tick. */
  private lastHeard = 0;
  private lastTick = 0;
  /** performance.now() when the current worker was started, and whether it has said anything since. */
  private spawnedAt = 0;
  private spoken = true;

  constructor(private readonly parts: WorkerWatchParts) {}

  /** Starts watching, if not watching already (a job was handed over). */
  start(): void {
    if (this.timer !== undefined) return;
    this.lastHeard = this.lastTick = performance.now();
    const every = Math.min(PING_MS, this.parts.stuckAfterMs() / 4);
    this.timer = setInterval(() => this.tick(every), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A new worker was started: it is silent while it loads. */
  spawned(): void {
    this.spawnedAt = performance.now();
    this.spoken = false;
  }

  /** The worker said something. */
  heard(): void {
    this.lastHeard = performance.now();
    this.spoken = true;
  }

  private tick(every: number): void {
    const now = performance.now();
    const late = now - this.lastTick > LATE_PERIODS * every;
    this.lastTick = now;
    if (!this.parts.busy()) return this.stop();
    if (late || (!this.spoken && now - this.spawnedAt < LOAD_MS)) this.lastHeard = now;
    else if (now - this.lastHeard > this.parts.stuckAfterMs()) {
      this.stop();
      return this.parts.stuck(now - this.lastHeard);
    }
    this.parts.ping();
  }
}
