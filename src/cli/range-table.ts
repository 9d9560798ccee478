/**
 * The "Numbering ranges" section of `edoc-bridge status`: what the daemon's range watch last stored
 * in the state folder (`ranges.json`), days left counted again for today. Status reads E10 itself
 * never: it needs no API key and spends no request of the company's rate.
 */
import { daysBetween } from '../policy/dates.js';
import { loadRanges, type StoredRanges } from '../ranges/range-file.js';
import type { RangeState } from '../ranges/range-state.js';
import { renderTable } from './table.js';

/** The stored ranges with days left as of `today`; undefined when no daemon stored any yet. */
export function storedRanges(stateDir: string, today: string): StoredRanges | undefined {
  const stored = loadRanges(stateDir);
  if (stored === undefined) return undefined;
  const ranges = stored.ranges.map((r) => {
    try {
      return { ...r, daysLeft: daysBetween(today, r.validUntil) };
    } catch {
      return r;
    }
  });
  return { ...stored, ranges };
}

export function rangeLines(stored: StoredRanges | undefined): string[] {
  if (stored === undefined) {
    return [
      'Numbering ranges: not read yet (the daemon reads them from the service at start and every alerts.ranges.every).',
    ];
  }
  const out = [
    `Numbering ranges (as the daemon last read them; saved ${new Date(stored.savedAt).toISOString()}):`,
  ];
  if (stored.ranges.length === 0) out.push('  none listed by the service');
  else {
    out.push(
      ...renderTable<RangeState>(stored.ranges, [
        { header: 'company', value: (r) => r.company },
        { header: 'prefix', value: (r) => r.prefix },
        { header: 'from', value: (r) => String(r.from), align: 'right' },
        { header: 'to', value: (r) => String(r.to), align: 'right' },
        {
          header: 'last used',
          value: (r) => (r.lastUsed === undefined ? '-' : String(r.lastUsed)),
          align: 'right',
        },
        { header: 'numbers left', value: (r) => String(r.numbersLeft), align: 'right' },
        { header: 'valid until', value: (r) => r.validUntil },
        {
          header: 'days left',
          value: (r) => (r.daysLeft < 0 ? `expired ${-r.daysLeft}d ago` : String(r.daysLeft)),
          align: 'right',
        },
      ]),
    );
  }
  for (const c of stored.companies) {
    if (c.error !== undefined) {
      out.push(
        `  ${c.company}: the last read failed at ${new Date(c.errorAt ?? 0).toISOString()} (${c.error})` +
          `${c.readAt === undefined ? '; never read yet' : `; shown as read at ${new Date(c.readAt).toISOString()}`}`,
      );
    }
  }
  return out;
}
