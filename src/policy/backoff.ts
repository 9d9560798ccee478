/**
 * Exponential backoff with full jitter (the delay is drawn uniformly below an
 * exponentially growing cap), so many documents failing together do not retry
 * in lock-step. `Retry-After` from the service is a floor, not a suggestion.
 */

export interface BackoffOptions {
  /** Cap of the first retry's delay. */
  baseDelayMs: number;
  /** No backoff delay is ever longer than this. */
  maxDelayMs: number;
  /**
   * Ceiling for a server's `Retry-After`, so a hostile or broken answer cannot park
   * a document for days. @defaultValue max(maxDelayMs, DEFAULT_MAX_RETRY_AFTER_MS)
   */
  maxRetryAfterMs?: number;
}

/** Default ceiling for an honoured `Retry-After`: 10 minutes. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Delay before retry number `attempt` (1 = first retry; values below 1 count as 1):
 * uniform in [0, min(maxDelayMs, baseDelayMs × 2^(attempt−1))), whole milliseconds.
 */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions,
  random: () => number = Math.random,
): number {
  const cap = backoffCap(attempt, opts);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.min(Math.floor(r * cap), Math.max(cap - 1, 0));
}

/** The upper bound (exclusive) that `backoffDelay` draws below for this attempt. */
export function backoffCap(attempt: number, opts: BackoffOptions): number {
  const base = Math.max(0, opts.baseDelayMs);
  const max = Math.max(0, opts.maxDelayMs);
  const n = Number.isFinite(attempt) ? Math.max(1, Math.floor(attempt)) : 1;
  // 2^52 already exceeds any sane max; stop before the float turns to Infinity.
  const exp = Math.min(n - 1, 52);
  return Math.min(max, base * 2 ** exp);
}

/**
 * The delay to actually wait: the jittered backoff, but never less than the
 * server's `Retry-After` (itself capped at `maxRetryAfterMs`).
 */
export function nextDelay(
  attempt: number,
  opts: BackoffOptions,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const delay = backoffDelay(attempt, opts, random);
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs) || retryAfterMs <= 0)
    return delay;
  const ceiling = opts.maxRetryAfterMs ?? Math.max(opts.maxDelayMs, DEFAULT_MAX_RETRY_AFTER_MS);
  return Math.max(delay, Math.min(Math.ceil(retryAfterMs), ceiling));
}
