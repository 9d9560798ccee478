/**
 * The other convention of a mapping's number and date format: the decimal and thousands separators
 * exchanged (`12.50` under `decimal: ","`), day and month exchanged (`04/13/2026` under `dd/MM/yyyy`).
 * A cell of the export that does not read in the mapping's format but reads in the other one shows the
 * whole export is written in the other: its cells that read either way (`1.250`, `45.000`,
 * `03/04/2026`) would be issued wrong, 1000 times too big or on another day. Such a cell is reported
 * as EDOC_MAP_FORMAT_MISMATCH, which the reader turns into a refusal of the whole file
 * (read/csv-source.ts). A cell that reads in neither convention is a typo of one document.
 */
import { excerpt, quoted } from '../policy/excerpt.js';
import type { Problem } from '../validate/problem.js';
import { compileDatePattern, erpDateToIso } from './convert-date.js';
import { erpNumberToPlain } from './convert-number.js';
import type { MappingFormat } from './mapping-types.js';

type NumberFormat = Pick<MappingFormat, 'decimal' | 'thousands'>;

/** The mapping's format with the separators exchanged: `,`/`.` becomes `.`/`,` (and `,`/none too). */
export function otherNumberFormat(format: NumberFormat): NumberFormat {
  return { decimal: format.decimal === ',' ? '.' : ',', thousands: format.decimal };
}

const SWAP: Record<string, string> = { dd: 'MM', MM: 'dd', d: 'M', M: 'd' };

/**
 * The pattern with day and month exchanged, where an export may mean the other (`dd/MM/yyyy` and
 * `MM/dd/yyyy`, `d.M.yy`): undefined when the year does not come last (`yyyy-MM-dd` has no
 * month-first twin an ERP writes, so a month 13 there is a typo).
 */
export function otherDatePattern(pattern: string): string | undefined {
  const order = compileDatePattern(pattern).order;
  if (order[2] !== 'y' && order[2] !== 'yy') return undefined;
  return pattern.replace(/dd|MM|d|M/g, (t) => SWAP[t]);
}

function mismatch(text: string, column: string, rows: number[], message: string): Problem {
  return {
    code: 'EDOC_MAP_FORMAT_MISMATCH',
    path: '',
    column,
    value: excerpt(text),
    rows,
    message,
  };
}

function withoutPercent(text: string): string {
  return text.trim().replace(/\s*%$/, '');
}

/** The mapping's number format and the other one, as a person reads them. */
function separators(f: NumberFormat): string {
  return `decimal "${f.decimal}", thousands "${f.thousands}"`;
}

function pointOrComma(decimal: string): string {
  return decimal === '.' ? 'a decimal point' : 'a decimal comma';
}

/**
 * EDOC_MAP_FORMAT_MISMATCH for a number cell that does not read in the mapping's format but does in the
 * other one; undefined otherwise (it reads, or it reads in neither: a typo).
 */
export function numberMismatch(
  format: NumberFormat,
  text: string,
  column: string,
  rows: number[],
): Problem | undefined {
  const bare = withoutPercent(text);
  if (bare === '' || erpNumberToPlain(bare, format) !== undefined) return undefined;
  const other = otherNumberFormat(format);
  if (erpNumberToPlain(bare, other) === undefined) return undefined;
  // without grouping, the other convention's cell that reads wrong is a grouped one (1,250 as 1.25)
  const example =
    format.thousands === ''
      ? `${format.decimal === ',' ? '1,250' : '1.250'} as 1.25`
      : `${format.decimal === ',' ? '1.250' : '1,250'} as 1250`;
  const grouped = { decimal: format.decimal, thousands: other.decimal };
  const asGrouped = format.thousands === '' ? erpNumberToPlain(bare, grouped) : undefined;
  if (asGrouped !== undefined) {
    // `12.500` under decimal ",", thousands "": 12500 grouped, or 12.5 with a decimal point
    return mismatch(
      text,
      column,
      rows,
      `${quoted(text)} is not a number in the mapping's format (${separators(format)}) but is one ` +
        `both with ${separators(grouped)} (${asGrouped}) and with ${separators(other)} ` +
        `(${erpNumberToPlain(bare, other)}): the file is not written as the mapping says, and its ` +
        `cells that read either way may be misread (${example}). Nothing of the file is sent: fix the ` +
        `mapping's format (thousands: "${grouped.thousands}" if the export groups thousands, or ` +
        `decimal: "${other.decimal}", thousands: "${other.thousands}" if it writes ` +
        `${pointOrComma(other.decimal)}), and drop the file again`,
    );
  }
  return mismatch(
    text,
    column,
    rows,
    `${quoted(text)} is not a number in the mapping's format (${separators(format)}) but is one with ` +
      `${separators(other)}: the file seems to be written with ${pointOrComma(other.decimal)}, and its ` +
      `cells that read either way would be misread (${example}). Nothing of the file is sent: fix the ` +
      `mapping's format (decimal: "${other.decimal}", thousands: "${other.thousands}") or export the ` +
      `numbers with ${pointOrComma(format.decimal)}, and drop the file again`,
  );
}

/**
 * EDOC_MAP_FORMAT_MISMATCH for a date cell (or the date of a date-and-time cell, `datePart`: its own, or
 * the part a `split` or `capture` reads) that is not a date of the mapping's pattern but is one with day
 * and month exchanged; undefined otherwise. The message quotes `text`, the cell as the export wrote it.
 */
export function dateMismatch(
  pattern: string,
  text: string,
  column: string,
  rows: number[],
  datePart?: string,
): Problem | undefined {
  const other = otherDatePattern(pattern);
  if (other === undefined) return undefined;
  const date = [text, datePart].find(
    (t) => t !== undefined && erpDateToIso(t, pattern) === undefined && erpDateToIso(t, other),
  );
  if (date === undefined) return undefined;
  const monthFirst = compileDatePattern(other).order[0] === 'M';
  return mismatch(
    text,
    column,
    rows,
    `${quoted(text)} is not a date in the mapping's form ${pattern} but is one in ${other} ` +
      `(${erpDateToIso(date, other)}): the file seems to write the ${monthFirst ? 'month' : 'day'} ` +
      `first, and its dates that read either way would be issued on another day (03/04 as ` +
      `${monthFirst ? '3 April for 4 March' : '4 March for 3 April'}). Nothing of the file is sent: ` +
      `fix the mapping's format (date: ${other}) or export the dates as ${pattern}, and drop the file again`,
  );
}
