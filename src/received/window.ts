/**
 * Date windows of the received-documents pull (pure). Dates are `yyyy-MM-dd`
 * strings, compared as text (the format sorts like the calendar).
 *
 * The cursor of a company is the last day whose documents are all written.
 * A scheduled pull reads `cursor − lookbackDays … today`, so documents the
 * service lists late (a supplier's document reaching the mailbox days after
 * its date) are still picked up; without a cursor it starts at `startDate`.
 */
import { addDays, isDate } from '../policy/dates.js';

export interface DateWindow {
  /** First document date, `yyyy-MM-dd`. */
  from: string;
  /** Last document date, `yyyy-MM-dd`, the whole day included. */
  to: string;
}

export interface ScheduledWindowInput {
  /** The stored cursor, undefined before the first complete pull. */
  cursor: string | undefined;
  lookbackDays: number;
  /** The first date pulled when there is no cursor yet. */
  startDate: string;
  /** Colombia's today. */
  today: string;
}

/** The window of a scheduled (or argument-less CLI) pull. */
export function scheduledWindow(input: ScheduledWindowInput): DateWindow {
  const from =
    input.cursor === undefined || !isDate(input.cursor)
      ? input.startDate
      : addDays(input.cursor, -input.lookbackDays);
  // A cursor at today with no lookback, or a startDate in the future, still gives a valid one-day window.
  return { from: min(from, input.today), to: input.today };
}

/** Calendar-month slices of a window, oldest first: the cursor then moves forward a month at a time. */
export function monthSlices(window: DateWindow): DateWindow[] {
  if (window.from > window.to) return [];
  const slices: DateWindow[] = [];
  let from = window.from;
  while (from <= window.to) {
    const end = min(lastDayOfMonth(from), window.to);
    slices.push({ from, to: end });
    from = addDays(end, 1);
  }
  return slices;
}

export function lastDayOfMonth(date: string): string {
  const [y, m] = date.split('-').map(Number);
  const nextMonth = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
  return addDays(nextMonth, -1);
}

/**
 * The cursor after a complete slice, or undefined when it must not move: only
 * forward, only when the slice joins the cursor without a gap (a backfill of
 * June must not claim that February–May were read), never past today.
 */
export function advancedCursor(
  cursor: string | undefined,
  startDate: string,
  slice: DateWindow,
  today: string,
): string | undefined {
  const covered = cursor ?? addDays(startDate, -1);
  if (slice.from > addDays(covered, 1)) return undefined;
  const next = min(slice.to, today);
  return next > covered ? next : undefined;
}

export function formatWindow(window: DateWindow): string {
  return `${window.from}..${window.to}`;
}

function min(a: string, b: string): string {
  return a < b ? a : b;
}
