/**
 * `Retry-After` (RFC 9110 §10.2.3): either delta-seconds or an HTTP-date.
 * Answers the wait in milliseconds from `nowMs`, 0 for a date already past,
 * and `undefined` for anything else so a garbled header is simply ignored.
 */

const DELTA_SECONDS = /^\d+$/;
// IMF-fixdate, obsolete RFC 850 and asctime forms all name a weekday or month in letters.
const LOOKS_LIKE_DATE = /[A-Za-z]{3}/;

export function parseRetryAfter(
  value: string | readonly string[] | null | undefined,
  nowMs: number,
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (DELTA_SECONDS.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : undefined;
  }
  if (!LOOKS_LIKE_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
