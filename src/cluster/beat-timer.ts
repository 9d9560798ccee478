/**
 * When the lease keeper beats: every `heartbeatMs`, never two beats at once, and at once (within a small
 * jitter) when another node released a lease — a beat under way is then followed by another at once.
 */
/** The spread of the early beats of the nodes told of a released lease. */
const SOON_JITTER_MS = 50;

export class BeatTimer {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  /** A beat was asked for while one ran: its end schedules the next at once. */
  private soon = false;
  private stopped = false;

  constructor(
    private readonly beat: () => Promise<void>,
    private readonly heartbeatMs: number,
  ) {}

  /** The next beat after a heartbeat (the first one ran already). */
  start(): void {
    this.schedule(this.heartbeatMs);
  }

  /** A beat now rather than at the next heartbeat; the jitter keeps the nodes told from beating in the same millisecond. */
  soonest(): void {
    if (this.stopped) return;
    if (this.timer === undefined) {
      this.soon = true;
      return;
    }
    this.schedule(Math.floor(Math.random() * SOON_JITTER_MS));
  }

  /** No more beats; resolves after the one under way, if any. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.beating;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.beating = this.beat().finally(() => {
        const soon = this.soon;
        this.soon = false;
        this.schedule(soon ? 0 : this.heartbeatMs);
      });
    }, delayMs);
  }
}
