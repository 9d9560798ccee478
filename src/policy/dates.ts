/**
 * Dates as the wire writes them. Colombia keeps UTC−5 all year (no DST), so
 * "today" there is the UTC date of (now − 5 h); an emulator seed may pin it.
 * Parsers are strict: the exact shape, a real calendar day, nothing else.
 */

const COLOMBIA_OFFSET_MS = -5 * 3_600_000;
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const DMY = /^(\d{2})\/(\d{2})\/(\d{4})$/;

/** Colombia's current date `yyyy-MM-dd`, or `pinned` when a valid date is given. */
export function colombiaToday(now: number = Date.now(), pinned?: string | null): string {
  if (pinned !== undefined && pinned !== null && parseDate(pinned) !== undefined) return pinned;
  return formatDate(now + COLOMBIA_OFFSET_MS);
}

/** Colombia's wall-clock time `yyyy-MM-ddTHH:mm:ss` (e.g. for an IssueDate). */
export function colombiaDateTime(now: number = Date.now()): string {
  return formatDateTime(now + COLOMBIA_OFFSET_MS);
}

/** Whole days from `a` to `b` (both `yyyy-MM-dd`): positive when b is later. Throws on a malformed date. */
export function daysBetween(a: string, b: string): number {
  const x = parseDate(a);
  const y = parseDate(b);
  if (x === undefined || y === undefined)
    throw new RangeError(`Not yyyy-MM-dd: ${x === undefined ? a : b}`);
  return Math.round((y - x) / DAY_MS);
}

/** `yyyy-MM-dd` plus `days` (may be negative). */
export function addDays(date: string, days: number): string {
  const x = parseDate(date);
  if (x === undefined) throw new RangeError(`Not yyyy-MM-dd: ${date}`);
  return formatDate(x + days * DAY_MS);
}

/** `yyyy-MM-dd` -> epoch ms of that day's 00:00 UTC, or undefined. */
export function parseDate(text: string): number | undefined {
  const m = DATE.exec(text);
  return m === null ? undefined : utc(+m[1], +m[2], +m[3], 0, 0, 0);
}

/** `yyyy-MM-ddTHH:mm:ss` (no zone: read as UTC wall time) -> epoch ms, or undefined. */
export function parseDateTime(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  return m === null ? undefined : utc(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]);
}

/** `dd/MM/yyyy` -> `yyyy-MM-dd`, or undefined when not a real day in that shape. */
export function dmyToIso(text: string): string | undefined {
  const m = DMY.exec(text);
  if (m === null) return undefined;
  const at = utc(+m[3], +m[2], +m[1], 0, 0, 0);
  return at === undefined ? undefined : formatDate(at);
}

/** `yyyy-MM-dd` -> `dd/MM/yyyy`, or undefined when malformed. */
export function isoToDmy(text: string): string | undefined {
  const m = DATE.exec(text);
  if (m === null || parseDate(text) === undefined) return undefined;
  return `${m[3]}/${m[2]}/${m[1]}`;
}

export function isDate(text: unknown): text is string {
  return typeof text === 'string' && parseDate(text) !== undefined;
}

export function isDateTime(text: unknown): text is string {
  return typeof text === 'string' && parseDateTime(text) !== undefined;
}

/** Epoch ms -> UTC `yyyy-MM-dd`. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Epoch ms -> UTC `yyyy-MM-ddTHH:mm:ss`. */
export function formatDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

function utc(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
): number | undefined {
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const at = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(at);
  // Date.UTC rolls 31 April into 1 May and maps years 0–99 to 1900+; reject both.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d)
    return undefined;
  return at;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const HTTP_DATE = /^(?:[A-Za-z]+,\s*)?(\d{1,2})[\s-]+([A-Za-z]{3})[\s-]+(\d{4})\b/;

/**
 * The calendar day a timestamp is written on, `yyyy-MM-dd`: the date as written, in the
 * timestamp's own zone (`Tue, 31 Mar 2026 23:59:59 -0500` is 31 March, not 1 April in UTC),
 * from an HTTP-date or an ISO date/time; other shapes as their UTC date; undefined when unreadable.
 */
export function writtenDay(text: string): string | undefined {
  const trimmed = text.trim();
  const iso = /^(\d{4}-\d{2}-\d{2})(?!\d)/.exec(trimmed);
  if (iso !== null) return parseDate(iso[1]) === undefined ? undefined : iso[1];
  const http = HTTP_DATE.exec(trimmed);
  if (http !== null) {
    const month = MONTHS.indexOf(http[2].toLowerCase()) + 1;
    const day = `${http[3]}-${String(month).padStart(2, '0')}-${http[1].padStart(2, '0')}`;
    // a day the calendar does not have (30 Feb) is unreadable, not rolled into the next month
    return month > 0 && parseDate(day) !== undefined ? day : undefined;
  }
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? undefined : formatDate(ms);
}
