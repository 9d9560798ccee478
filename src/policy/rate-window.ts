/**
 * A strict sliding window: at most `limit` acquisitions in any half-open span
 * of `windowMs` milliseconds, with no burst at a window boundary (a fixed window
 * would allow 2 × limit across one). Pure: the caller passes the clock.
 *
 * Only the newest `limit` acquisition times matter (a new one is admitted when
 * the oldest of them has left the window), so memory is O(limit).
 *
 * A slot can also be taken as a reservation whose time is the moment the request
 * actually leaves (`Reservation.sent`): the service counts arrivals, and a request
 * held back after its slot was taken (a connection still opening, a ledger commit
 * on the same thread) must not leave less than a window before the one `limit`
 * places after it. Until it is sent a reservation counts as "now, and later".
 */
export interface Reservation {
  /**
   * The request left at `at` (or the attempt to send it ended then: a refused connection counts too,
   * so a service that is down gets no more connection attempts than requests): from now on the slot
   * counts from then. Idempotent.
   */
  sent(at: number): void;
}

/** How soon to ask again when all `limit` slots are reservations whose requests have not left. */
const OPEN_RESERVATIONS_POLL_MS = 2;

/** The slowest `refused` goes: 1/64 of the configured rate. */
const MIN_SLOW_FACTOR = 1 / 64;

export class SlidingWindow {
  readonly limit: number;
  readonly windowMs: number;
  /** Newest `limit` acquisition times, oldest first; a reservation not yet sent is Infinity, at the end. */
  private readonly times: number[] = [];
  private last = Number.NEGATIVE_INFINITY;
  private slowFactor = 1;
  private slowUntil = Number.NEGATIVE_INFINITY;
  private lastHalving = Number.NEGATIVE_INFINITY;

  constructor(limit: number, windowMs: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`SlidingWindow limit must be a positive integer, got ${limit}`);
    if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError(`SlidingWindow windowMs must be positive, got ${windowMs}`);
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /**
   * 0 when an acquisition is allowed at `now` (and records it); otherwise the
   * milliseconds to wait before asking again (nothing is recorded).
   */
  tryAcquire(now: number): number {
    // A clock that steps back must not reopen slots already spent.
    const t = Math.max(now, this.last);
    this.last = t;
    const wait = this.waitAt(t);
    if (wait > 0) return wait;
    this.times.push(t);
    if (this.times.length > this.limit) this.times.shift();
    return 0;
  }

  /**
   * Like `tryAcquire`, but the slot's time is set when the request is sent: `{ wait }` to ask again
   * later, or the reservation. Call `sent` on it once the request left or the attempt ended.
   */
  tryReserve(now: number): { wait: number } | { reservation: Reservation } {
    const t = Math.max(now, this.last);
    this.last = t;
    const wait = this.waitAt(t);
    if (wait > 0) return { wait };
    this.times.push(Number.POSITIVE_INFINITY);
    if (this.times.length > this.limit) this.times.shift();
    let open = true;
    const sent = (at: number): void => {
      if (!open) return;
      open = false;
      const i = this.times.lastIndexOf(Number.POSITIVE_INFINITY);
      if (i < 0) return; // pushed out of the window by newer slots meanwhile
      this.times.splice(i, 1);
      const sentAt = Math.max(at, this.last);
      this.last = sentAt;
      // Every finite time is at most `sentAt`: it goes after them, before the reservations still open.
      const firstOpen = this.times.indexOf(Number.POSITIVE_INFINITY);
      this.times.splice(firstOpen < 0 ? this.times.length : firstOpen, 0, sentAt);
    };
    return { reservation: { sent } };
  }

  /** Milliseconds until an acquisition would be allowed at `now` (0 = now), recording nothing. */
  peek(now: number): number {
    return this.waitAt(Math.max(now, this.last));
  }

  /**
   * The service refused a request for its rate (429) at `now`: run at half the rate until `untilMs`.
   * A refusal a whole window after the last halving halves again, since the service still refuses at
   * the slower rate, down to 1/64 of the configured rate; refusals closer together (requests sent or
   * counted by the service before the last halving could act) count once. Each one moves the end to
   * `untilMs`, after which the configured rate applies again.
   */
  refused(now: number, untilMs: number): void {
    const slowed = now < this.slowUntil;
    if (slowed && now - this.lastHalving < this.current(now).windowMs) {
      this.slowUntil = Math.max(this.slowUntil, untilMs);
      return;
    }
    this.slowFactor = slowed ? Math.max(MIN_SLOW_FACTOR, this.slowFactor / 2) : 0.5;
    this.slowUntil = slowed ? Math.max(this.slowUntil, untilMs) : untilMs;
    this.lastHalving = now;
  }

  /**
   * The limit and window in force at `now`. Slowed down, the window admits fewer requests rather
   * than stretching (a stretched window would still let the whole configured burst through at
   * once, which a service that counts per second refuses again); below one request per window, one
   * request per longer window.
   */
  current(now: number): { limit: number; windowMs: number } {
    if (now >= this.slowUntil) return { limit: this.limit, windowMs: this.windowMs };
    const allowed = this.limit * this.slowFactor;
    return allowed >= 1 ? { limit: Math.floor(allowed), windowMs: this.windowMs } : { limit: 1, windowMs: this.windowMs / allowed };
  }

  /** Acquisitions recorded inside the window ending at `now` (for logs and tests). */
  inWindow(now: number): number {
    const span = this.current(now).windowMs;
    return this.times.filter((t) => t > now - span && t <= now).length;
  }

  private waitAt(t: number): number {
    const { limit, windowMs: span } = this.current(t);
    if (this.times.length < limit) return 0;
    // the oldest of the newest `limit` acquisitions (the times are kept oldest first)
    const oldest = this.times[this.times.length - limit] as number;
    // Every slot of the window is a request not sent yet: ask again shortly.
    if (oldest === Number.POSITIVE_INFINITY) return OPEN_RESERVATIONS_POLL_MS;
    // The window is the half-open span (t - span, t]: the oldest leaves it once t >= oldest + span.
    const free = oldest + span;
    return free <= t ? 0 : Math.ceil(free - t);
  }
}
