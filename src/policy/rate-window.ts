/**
 * A strict sliding window: at most `limit` acquisitions in any half-open span
 * of `windowMs` milliseconds, with no burst at a window boundary (a fixed window
 * would allow 2 × limit across one). Pure: the caller passes the clock.
 *
 * Only the newest `limit` acquisition times matter (a new one is admitted when
 * the oldest of them has left the window), so memory is O(limit).
 *
 * A slot can also be taken as a reservation, dated when the request it stands
 * for has ENDED (`Reservation.ended`: its answer came, or the attempt failed).
 * The service counts arrivals, and a request's arrival is known only to lie
 * between the moment it left and the moment its answer came back: a request
 * slowed on its way (a stalled network, a service whose event loop is busy)
 * arrives late and would bunch up with the next window's if the slot were dated
 * when it left. Dated by its end, the `limit`-th request after it cannot leave
 * before that end + windowMs, so it cannot arrive within windowMs of it,
 * whatever the transit times were. The price is the round trip: a slot turns
 * over every windowMs + latency, so a company whose rate binds gets at most
 * limit × windowMs / (windowMs + latency) requests a window. Until it ends a
 * reservation counts as "now, and later".
 */
export interface Reservation {
  /**
   * The request's answer came (or the attempt ended without one: a refused connection counts too, so a
   * service that is down gets no more connection attempts than requests) at `at`: from now on the slot
   * counts from then. Idempotent.
   */
  ended(at: number): void;
}

/** The slowest `refused` goes: 1/64 of the configured rate. */
const MIN_SLOW_FACTOR = 1 / 64;

/** `waitAt`'s answer when every slot is a request in flight. */
const OPEN = Number.POSITIVE_INFINITY;

/**
 * How soon a caller without a way to hear of a request's end asks again when every slot is in flight
 * (`peek`, and `tryReserve`'s `{ wait, open }`): a slot frees only a window after a request ends, so
 * polling this often loses nothing.
 */
export const OPEN_POLL_MS = 25;

export class SlidingWindow {
  private configured: { limit: number; windowMs: number };
  /** Newest `limit` acquisition times, oldest first; a reservation not yet ended is Infinity, at the end. */
  private readonly times: number[] = [];
  private last = Number.NEGATIVE_INFINITY;
  private slowFactor = 1;
  private slowUntil = Number.NEGATIVE_INFINITY;
  private lastHalving = Number.NEGATIVE_INFINITY;

  constructor(limit: number, windowMs: number) {
    SlidingWindow.check(limit, windowMs);
    this.configured = { limit, windowMs };
  }

  /** The configured limit (a slow-down lowers what `current` gives, not this). */
  get limit(): number {
    return this.configured.limit;
  }

  get windowMs(): number {
    return this.configured.windowMs;
  }

  private static check(limit: number, windowMs: number): void {
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError(`SlidingWindow limit must be a positive integer, got ${limit}`);
    if (!Number.isFinite(windowMs) || windowMs <= 0)
      throw new RangeError(`SlidingWindow windowMs must be positive, got ${windowMs}`);
  }

  /**
   * A new configured rate (a reload), applied in place: the requests already counted — ended ones and
   * those still in flight, whose reservations report to this window — go on counting under the new limit
   * and span (a new, empty window would let a whole new limit leave beside them). A slow-down ends: the
   * configured rate is the operator's new word.
   */
  reconfigure(limit: number, windowMs: number): void {
    SlidingWindow.check(limit, windowMs);
    this.configured = { limit, windowMs };
    this.slowFactor = 1;
    this.slowUntil = Number.NEGATIVE_INFINITY;
    this.lastHalving = Number.NEGATIVE_INFINITY;
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
    // more than `limit` kept only after a reload lowered it: the oldest go one by one as new ones come
    if (this.times.length > this.limit) this.times.shift();
    return 0;
  }

  /**
   * Like `tryAcquire`, but the slot's time is set when the request ends: `{ wait }` to ask again later
   * (`open`: every slot of the window is a request still in flight, so no time can be told — ask again when
   * one ends), or the reservation. Call `ended` on it once the answer came or the attempt ended.
   */
  tryReserve(now: number): { wait: number; open?: true } | { reservation: Reservation } {
    const t = Math.max(now, this.last);
    this.last = t;
    const wait = this.waitAt(t);
    if (wait === OPEN) return { wait: OPEN_POLL_MS, open: true };
    if (wait > 0) return { wait };
    this.times.push(Number.POSITIVE_INFINITY);
    if (this.times.length > this.limit) this.times.shift();
    let open = true;
    const ended = (at: number): void => {
      if (!open) return;
      open = false;
      const i = this.times.lastIndexOf(Number.POSITIVE_INFINITY);
      if (i < 0) return; // pushed out of the window by newer slots meanwhile
      this.times.splice(i, 1);
      const endedAt = Math.max(at, this.last);
      this.last = endedAt;
      // Every finite time is at most `endedAt`: it goes after them, before the reservations still open.
      const firstOpen = this.times.indexOf(Number.POSITIVE_INFINITY);
      this.times.splice(firstOpen < 0 ? this.times.length : firstOpen, 0, endedAt);
    };
    return { reservation: { ended } };
  }

  /**
   * Milliseconds until an acquisition would be allowed at `now` (0 = now), recording nothing; when every
   * slot is a request still in flight, a short poll (`OPEN_POLL_MS`): the slot frees a window after one ends.
   */
  peek(now: number): number {
    const wait = this.waitAt(Math.max(now, this.last));
    return wait === OPEN ? OPEN_POLL_MS : wait;
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
    return allowed >= 1
      ? { limit: Math.floor(allowed), windowMs: this.windowMs }
      : { limit: 1, windowMs: this.windowMs / allowed };
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
    // Every slot of the window is a request still in flight: nothing frees before one ends.
    if (oldest === Number.POSITIVE_INFINITY) return OPEN;
    // The window is the half-open span (t - span, t]: the oldest leaves it once t >= oldest + span.
    const free = oldest + span;
    return free <= t ? 0 : Math.ceil(free - t);
  }
}
