/**
 * The numbering-range arithmetic, pure: an E10 range with the highest number the ledger used in it
 * becomes a `RangeState` (numbers left, days left), a prefix's ranges are summed up for the alerts,
 * and a number is judged inside or outside the active ranges of its prefix.
 */
import { DOCUMENT_KINDS, kindOf, type DocumentKind } from '../kinds/index.js';
import { daysBetween } from '../policy/dates.js';
import type { NumberingRange } from '../service/schemas/numbering.js';
import type { RangeState } from './range-state.js';

/**
 * The kinds whose numbers come from the ranges E10 lists (every kind but payroll, whose
 * `NumeroSecuenciaXML` numbering is not registered through E10).
 */
export const RANGE_KINDS: readonly DocumentKind[] = DOCUMENT_KINDS.filter(
  (kind) => kindOf(kind).numbering !== 'payroll',
);

/** One active range as numbers; undefined when E10 listed one whose bounds are not whole numbers. */
export interface ActiveRange {
  prefix: string;
  documentType: string;
  resolution: string;
  from: number;
  to: number;
  validUntil: string;
}

export function activeRange(range: NumberingRange): ActiveRange | undefined {
  const from = wholeNumber(range.FromNumber);
  const to = wholeNumber(range.ToNumber);
  if (from === undefined || to === undefined || from > to) return undefined;
  return {
    prefix: range.Prefix.trim(),
    documentType: range.ResolutionType ?? '',
    resolution: range.ResolutionNumber,
    from,
    to,
    validUntil: range.ValidDateTo.slice(0, 10),
  };
}

function wholeNumber(text: string): number | undefined {
  const t = text.trim();
  return /^\d{1,15}$/.test(t) ? Number(t) : undefined;
}

/** The range with what the ledger used of it, as of `today` (Colombia). */
export function rangeState(
  company: string,
  range: ActiveRange,
  lastUsed: number | undefined,
  today: string,
  readAt: number,
): RangeState {
  const used = Math.max(lastUsed ?? range.from - 1, range.from - 1);
  return {
    company,
    prefix: range.prefix,
    documentType: range.documentType,
    from: range.from,
    to: range.to,
    validUntil: range.validUntil,
    ...(lastUsed === undefined ? {} : { lastUsed }),
    numbersLeft: Math.max(0, range.to - used),
    daysLeft: daysBetween(today, range.validUntil),
    readAt,
  };
}

/**
 * Whether `number` lies in an active range of `prefix`: true or false, or undefined when E10 lists no
 * range of that prefix at all (then nothing is judged: the list may not show every kind's ranges).
 */
export function withinRanges(
  ranges: readonly ActiveRange[],
  prefix: string,
  number: number,
): boolean | undefined {
  const mine = ranges.filter((r) => r.prefix === prefix);
  if (mine.length === 0) return undefined;
  return mine.some((r) => r.from <= number && number <= r.to);
}

/** What the alerts judge per company and prefix: the ranges still valid, taken together. */
export interface PrefixSummary {
  company: string;
  prefix: string;
  /** Ranges of the prefix that are still valid today (days left ≥ 0). */
  valid: number;
  /** Numbers left in the valid ranges together. */
  numbersLeft: number;
  /** Days left of the valid range that lasts longest among those with numbers left; undefined when none has any. */
  daysLeft: number | undefined;
  /** Days since the last range of the prefix expired, when every one has. */
  expiredDaysAgo: number | undefined;
}

export function prefixSummaries(states: readonly RangeState[]): PrefixSummary[] {
  const byPrefix = new Map<string, RangeState[]>();
  for (const s of states) {
    const key = `${s.company}\u0000${s.prefix}`;
    byPrefix.set(key, [...(byPrefix.get(key) ?? []), s]);
  }
  return [...byPrefix.values()].map((list) => {
    const valid = list.filter((s) => s.daysLeft >= 0);
    const withNumbers = valid.filter((s) => s.numbersLeft > 0);
    return {
      company: list[0].company,
      prefix: list[0].prefix,
      valid: valid.length,
      numbersLeft: valid.reduce((sum, s) => sum + s.numbersLeft, 0),
      daysLeft:
        withNumbers.length === 0 ? undefined : Math.max(...withNumbers.map((s) => s.daysLeft)),
      expiredDaysAgo: valid.length === 0 ? -Math.max(...list.map((s) => s.daysLeft)) : undefined,
    };
  });
}

/** `FE 1–5000 (resolution 18764…)`, at most `max` of them: how a refusal names the active ranges. */
export function describeRanges(ranges: readonly ActiveRange[], max = 5): string {
  const shown = ranges
    .slice(0, max)
    .map(
      (r) => `${r.prefix} ${r.from}–${r.to} (resolution ${r.resolution}, valid to ${r.validUntil})`,
    );
  return ranges.length > max
    ? `${shown.join(', ')} and ${ranges.length - max} more`
    : shown.join(', ');
}
