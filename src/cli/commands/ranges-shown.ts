/**
 * How `ranges list` and `ranges create` show numbering ranges: the table columns, the flags of a
 * range that needs a look, the service's list read against the spec, and its messages.
 */
import { z } from 'zod';
import { EdocError } from '../../errors.js';
import { numberingRangeSchema, type NumberingRange } from '../../service/schemas/numbering.js';
import type { CliIO } from '../command.js';
import { type Column } from '../table.js';

export interface ShownRange {
  range: NumberingRange;
  flags: string[];
  /** With what the ledger used of it (list only). */
  use?: { lastUsed?: number; numbersLeft: number; daysLeft: number };
}

/** Why a listed range needs a look: the list may carry a ValidDateTo before ValidDateFrom (spec), or one already past. */
export function rangeFlags(range: NumberingRange, today: string): string[] {
  const from = range.ValidDateFrom.slice(0, 10);
  const to = range.ValidDateTo.slice(0, 10);
  const flags: string[] = [];
  if (to < from) flags.push('ends before it starts');
  if (to < today) flags.push('expired');
  return flags;
}

export const COLUMNS: readonly Column<ShownRange>[] = [
  { header: 'PREFIX', value: (r) => r.range.Prefix },
  { header: 'FROM', value: (r) => r.range.FromNumber, align: 'right' },
  { header: 'TO', value: (r) => r.range.ToNumber, align: 'right' },
  { header: 'RESOLUTION', value: (r) => r.range.ResolutionNumber },
  { header: 'RESOLUTION DATE', value: (r) => r.range.ResolutionDate ?? '-' },
  { header: 'VALID FROM', value: (r) => r.range.ValidDateFrom },
  { header: 'VALID TO', value: (r) => r.range.ValidDateTo },
  { header: 'TYPE', value: (r) => r.range.ResolutionType ?? '-' },
  // what the ledger used of each range: the last number, the numbers and days left
  {
    header: 'LAST USED',
    value: (r) => (r.use?.lastUsed === undefined ? '-' : String(r.use.lastUsed)),
    align: 'right',
  },
  {
    header: 'NUMBERS LEFT',
    value: (r) => (r.use === undefined ? '-' : String(r.use.numbersLeft)),
    align: 'right',
  },
  {
    header: 'DAYS LEFT',
    value: (r) => (r.use === undefined ? '-' : String(r.use.daysLeft)),
    align: 'right',
  },
  { header: 'CHECK', value: (r) => (r.flags.length === 0 ? 'ok' : `! ${r.flags.join(', ')}`) },
];

export function readRanges(data: unknown): NumberingRange[] {
  const parsed = z.array(numberingRangeSchema).safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EdocError(
      'EDOC_SERVICE_BAD_RESPONSE',
      `the service answered ranges that do not follow the spec (ResultData${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message})`,
    );
  }
  return parsed.data;
}

export function printServiceMessages(
  io: CliIO,
  heading: string,
  messages: readonly string[],
): void {
  io.err(heading);
  for (const message of messages) io.err(`  - ${message}`);
}
