/**
 * The token check: constant-time, and rationed against guessing.
 *
 * Wrong tokens (Bearer or login form) are counted for the whole listener, not per address: an
 * attacker who rotates source addresses (127.0.0.2, 127.0.0.3, …, or a proxy's many clients) spends
 * the same budget. Within `windowMs`, `freeAttempts` wrong tokens are free; past that, tokens are
 * still compared, but at most one every `spacingMs`, which doubles with each further wrong token up to
 * `maxSpacingMs`. Rationing the comparisons, not refusing addresses, is what bounds guessing (an
 * answer that came at once tells right from wrong, whatever a wrong one is delayed by), and it never
 * refuses the right token: its holder waits for a turn, then gets in. A live session (the cookie)
 * never goes through the guard at all.
 *
 * Turns go round the waiting addresses in order, one attempt each, so one address holding many
 * requests does not push another's to the back; the wait of the right token is at most one spacing
 * per address waiting. Per-address state is only the queue of attempts waiting now (bounded by
 * `maxWaiting`, and by the listener's connections): nothing per address outlives its requests.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in time that depends on neither (both hashed to 32 bytes first). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export interface LoginGuardOptions {
  /** Wrong tokens in a window before comparisons are rationed. @defaultValue 10 */
  freeAttempts?: number;
  /** The budget is whole again after this long without a wrong token. @defaultValue 15 minutes */
  windowMs?: number;
  /** Time between two comparisons once rationed (doubles per further wrong token). @defaultValue 250 */
  spacingMs?: number;
  /** @defaultValue 2000 (so at most 1,800 guesses an hour, whatever the number of addresses) */
  maxSpacingMs?: number;
  /** Attempts waiting for a turn at once; past this an attempt is refused (429) without comparing. @defaultValue 512 */
  maxWaiting?: number;
  now?: () => number;
}

export type Turn = { ok: true; rationed: boolean } | { ok: false; retryAfterMs: number };

export class LoginGuard {
  private failures = 0;
  private lastFailureAt = 0;
  private nextTurnAt = 0;
  private waiting = 0;
  /** Address → the attempts of that address waiting; iteration order is the round. */
  private readonly queues = new Map<string, Array<() => void>>();
  private timer: NodeJS.Timeout | undefined;
  private readonly freeAttempts: number;
  private readonly windowMs: number;
  private readonly spacing: number;
  private readonly maxSpacingMs: number;
  private readonly maxWaiting: number;
  private readonly now: () => number;

  constructor(options: LoginGuardOptions = {}) {
    this.freeAttempts = options.freeAttempts ?? 10;
    this.windowMs = options.windowMs ?? 15 * 60_000;
    this.spacing = options.spacingMs ?? 250;
    this.maxSpacingMs = options.maxSpacingMs ?? 2_000;
    this.maxWaiting = options.maxWaiting ?? 512;
    this.now = options.now ?? Date.now;
  }

  /** Whether the free budget is spent: comparisons wait for a turn. */
  get rationed(): boolean {
    if (this.failures > 0 && this.now() - this.lastFailureAt > this.windowMs) this.failures = 0;
    return this.failures >= this.freeAttempts;
  }

  /** The time between two comparisons now. */
  get spacingMs(): number {
    const over = Math.max(0, this.failures - this.freeAttempts);
    return Math.min(this.maxSpacingMs, this.spacing * 2 ** Math.min(over, 20));
  }

  /** Resolves when a token from this address may be compared. */
  turn(address: string): Promise<Turn> {
    if (!this.rationed && this.waiting === 0) return Promise.resolve({ ok: true, rationed: false });
    if (this.waiting >= this.maxWaiting)
      return Promise.resolve({ ok: false, retryAfterMs: this.spacingMs * this.waiting });
    return new Promise((resolve) => {
      let queue = this.queues.get(address);
      if (queue === undefined) {
        queue = [];
        this.queues.set(address, queue);
      }
      queue.push(() => resolve({ ok: true, rationed: true }));
      this.waiting += 1;
      this.schedule();
    });
  }

  failed(): void {
    void this.rationed; // an old window ends before this failure counts
    this.failures += 1;
    this.lastFailureAt = this.now();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.waiting === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.release();
      },
      Math.max(0, this.nextTurnAt - Date.now()),
    );
    this.timer.unref();
  }

  /** One attempt of the first address in the round; that address goes to the end of the round. */
  private release(): void {
    const first = this.queues.entries().next();
    if (first.done === true) return;
    const [address, queue] = first.value;
    const next = queue.shift();
    this.queues.delete(address);
    if (queue.length > 0) this.queues.set(address, queue);
    this.waiting -= 1;
    this.nextTurnAt = Date.now() + this.spacingMs;
    next?.();
    this.schedule();
  }
}
