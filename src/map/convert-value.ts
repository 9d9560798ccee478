/**
 * Converts a value's text to what the wire carries, as its spec's `as:` says
 * (text, amount, number, integer, percent, fraction, id number, date, time,
 * datetime); a text that does not convert is reported, never guessed.
 */
import type { ErrorCode } from '../errors.js';
import { excerpt, quoted } from '../policy/excerpt.js';
import {
  looseIdWriting,
  nitCheckDigit,
  normaliseIdNumber,
  statedCheckDigit,
} from '../policy/nit.js';
import { timeOfDay, splitDateTime } from './capture.js';
import { erpDateToIso } from './convert-date.js';
import {
  erpNumberToAmount,
  erpNumberToDecimal,
  erpNumberToInteger,
  erpNumberPastCents,
  erpNumberToPercent,
} from './convert-number.js';
import type { EvalContext, RowView, Source } from './eval-context.js';
import { describe, report, sawNumber } from './eval-context.js';
import { dateMismatch, numberMismatch } from './format-evidence.js';
import type { MappingFormat, ValueSpec } from './mapping-types.js';

/** What `as: time` and a datetime's `time:` column read: 24-hour, or 12-hour with AM/PM (capture.ts's timeOfDay). */
const TIME_OF_DAY = 'a time of day (HH:mm:ss, or h:mm with AM/PM)';

/** Numbers an expression computes are plain (`12.5`), whatever the export's format. */
const PLAIN = { decimal: '.', thousands: '' } as const;

/** The conversions that read a cell as a number. */
const NUMBERS: ReadonlySet<string> = new Set([
  'decimal',
  'number',
  'integer',
  'percent',
  'fraction',
]);

export function convert(
  spec: ValueSpec,
  value: string,
  source: Source,
  row: RowView,
  ctx: EvalContext,
  path: string,
): string | null | undefined {
  try {
    return convertUnsafe(spec, value, source, row, ctx, path);
  } catch (err) {
    // Amounts beyond the safe range of cents throw in policy/amount.ts; here that is one bad cell.
    report(
      ctx,
      'EDOC_MAP_BAD_NUMBER',
      path,
      `${quoted(value)} in ${describe(spec)} cannot be converted: ${excerpt((err as Error).message, 200)}`,
      source.column,
      value,
    );
    return null;
  }
}

function convertUnsafe(
  spec: ValueSpec,
  value: string,
  source: Source,
  row: RowView,
  ctx: EvalContext,
  path: string,
): string | null | undefined {
  const format = source.plain ? { ...ctx.mapping.format, ...PLAIN } : ctx.mapping.format;
  const bad = (code: ErrorCode, what: string): null => {
    // a cell as the export wrote it that reads in the other convention refuses the whole file
    const column = exportColumn(spec, source);
    const mismatch =
      column === undefined
        ? undefined
        : otherConvention(code, value, writtenCell(spec, value, row), column, format, row.row);
    if (mismatch !== undefined) {
      ctx.problems.push({ ...mismatch, path });
      return null;
    }
    report(
      ctx,
      code,
      path,
      `${quoted(value)} in ${describe(spec)} is not ${what}`,
      source.column,
      value,
    );
    return null;
  };
  if (ctx.numbers !== undefined && NUMBERS.has(spec.as)) {
    // the export's cell read as a number: evidence of its column's convention (column-numbers.ts)
    const column = exportColumn(spec, source);
    if (column !== undefined) sawNumber(ctx, column, value, row);
  }
  switch (spec.as) {
    case 'text':
      return value;
    case 'decimal': {
      const amount = erpNumberToAmount(value, format);
      if (amount === undefined)
        return bad(
          'EDOC_MAP_BAD_NUMBER',
          `an amount (decimal "${format.decimal}", thousands "${format.thousands}")`,
        );
      // a cheap look first: digits past the cent need more than two after the decimal separator
      const point = value.lastIndexOf(format.decimal);
      const exact =
        ctx.rounded === undefined || point < 0 || value.length - point <= 3
          ? undefined
          : erpNumberPastCents(value, format);
      if (exact !== undefined) ctx.rounded!.set(path, exact);
      return amount;
    }
    case 'number':
      return (
        erpNumberToDecimal(value, format) ??
        bad(
          'EDOC_MAP_BAD_NUMBER',
          `a number (decimal "${format.decimal}", thousands "${format.thousands}")`,
        )
      );
    case 'integer':
      return erpNumberToInteger(value, format) ?? bad('EDOC_MAP_BAD_NUMBER', 'a whole number');
    case 'percent':
      return (
        erpNumberToPercent(value, format) ??
        bad('EDOC_MAP_BAD_NUMBER', 'a percentage with at most two decimals')
      );
    case 'fraction':
      return (
        fractionToPercent(value, format) ??
        bad(
          'EDOC_MAP_BAD_NUMBER',
          'a rate written as a fraction (0.19 for 19 %) with at most four decimals',
        )
      );
    case 'id-number': {
      const loose = looseIdWriting(value);
      if (loose !== undefined && 'id' in loose) return loose.id;
      if (loose !== undefined) {
        report(
          ctx,
          loose.code,
          path,
          `${quoted(value)} in ${describe(spec)} ${loose.message}`,
          source.column,
          value,
        );
        return null;
      }
      const id = normaliseIdNumber(value);
      if (!/^[0-9A-Za-z]+$/.test(id)) return bad('EDOC_MAP_BAD_NUMBER', 'an identification number');
      // the `-DV` the export wrote is dropped from the number: a digit that is not the number's check
      // digit is a typo in one of them (800197286-4 for 800197268-4), another customer if issued
      const stated = statedCheckDigit(value);
      const computed = stated !== undefined && /^\d{1,15}$/.test(id) ? nitCheckDigit(id) : stated;
      if (computed === stated) return id;
      report(
        ctx,
        'EDOC_VALIDATE_CHECK_DIGIT',
        path,
        `${quoted(value)} in ${describe(spec)} ends in the check digit ${stated}, but the check digit of ${id} is ${computed}: the number or the digit is mistyped, and the document is not issued to either; correct it in the export`,
        source.column,
        value,
      );
      return null;
    }
    case 'time':
      return timeOfDay(value) ?? bad('EDOC_MAP_BAD_DATE', TIME_OF_DAY);
    case 'date': {
      // the day of a date and a time in one cell (`18/11/2026 09:15`; a spreadsheet's date cell that holds a
      // time of day under a format showing the day only reaches the mapping so: sheet-values.ts)
      const both =
        erpDateToIso(value, format.date) === undefined ? splitDateTime(value) : undefined;
      return (
        erpDateToIso(both === undefined ? value : both[0], format.date) ??
        bad('EDOC_MAP_BAD_DATE', `a date in the form ${format.date}`)
      );
    }
    case 'datetime': {
      // a date and a time of day in one cell (`18/11/2026 09:15`, `18/11/2026 9:15:00 p. m.`)
      const date = erpDateToIso(value, format.date);
      if (date === undefined) {
        const both = splitDateTime(value);
        const day = both === undefined ? undefined : erpDateToIso(both[0], format.date);
        if (day !== undefined) return `${day}T${both![1]}`;
      }
      if (date === undefined) return bad('EDOC_MAP_BAD_DATE', `a date in the form ${format.date}`);
      if (spec.time === undefined) return `${date}T00:00:00`;
      const timeText = row.get(spec.time).trim();
      if (timeText === '') return `${date}T00:00:00`;
      const time = timeOfDay(timeText);
      if (time === undefined) {
        report(
          ctx,
          'EDOC_MAP_BAD_DATE',
          path,
          `${quoted(timeText)} in column "${spec.time}" is not ${TIME_OF_DAY}`,
          spec.time,
          timeText,
        );
        return null;
      }
      return `${date}T${time}`;
    }
  }
}

/**
 * The export's own cell (or cells a `concat` joins, as written): its column(s); undefined for an
 * expression's result, a lookup table's code or a master-data cell.
 */
function exportColumn(spec: ValueSpec, source: Source): string | undefined {
  if (spec.as === 'id-number' || spec.as === 'time') return undefined;
  if (source.plain || source.master === true || spec.lookup !== undefined) return undefined;
  if (source.column !== undefined) return source.column;
  const parts = spec.concat ?? [];
  // each part a cell as written: not converted (a part's `as: decimal` is plain), looked up or defaulted
  const asWritten = (p: ValueSpec): boolean =>
    p.column !== undefined && p.as === 'text' && p.lookup === undefined && p.default === undefined;
  // a `.` or `,` the mapping puts between them is its own, no evidence of the export's convention
  const cells = parts.length > 0 && parts.every(asWritten) && !/[.,]/.test(spec.separator ?? '');
  return cells ? parts.map((p) => p.column).join(', ') : undefined;
}

/**
 * The cell as the export wrote it, which a date mismatch quotes: the whole cell where the spec reads a
 * part of it (`split`, `capture`: `11/21/2026 14:32`, not its date `11/21/2026`), else the value itself.
 */
function writtenCell(spec: ValueSpec, value: string, row: RowView): string {
  if (spec.column === undefined || (spec.split === undefined && spec.capture === undefined))
    return value;
  return row.get(spec.column).trim();
}

/** A value in the other convention (`value`: what the spec reads of the cell `written`). */
function otherConvention(
  code: ErrorCode,
  value: string,
  written: string,
  column: string,
  format: MappingFormat,
  row: number,
) {
  if (code === 'EDOC_MAP_BAD_NUMBER') return numberMismatch(format, value, column, [row]);
  if (code !== 'EDOC_MAP_BAD_DATE') return undefined;
  // the date the spec reads: the part it split off (or captured), or a date-and-time value's date
  const datePart = splitDateTime(value)?.[0] ?? value;
  return dateMismatch(format.date, written, column, [row], datePart);
}

/**
 * `0,19` -> `19.00`: a rate the export writes as a fraction of one, as the percentage the wire carries.
 * A cell with its `%` sign (`19%`, a percent-formatted spreadsheet cell) says its own scale: 19 %.
 */
function fractionToPercent(value: string, format: MappingFormat): string | undefined {
  if (value.trimEnd().endsWith('%')) return erpNumberToPercent(value, format);
  const dec = erpNumberToDecimal(value, format);
  if (dec === undefined || dec.startsWith('-')) return undefined;
  const [int, frac = ''] = dec.split('.');
  if (frac.length > 4) return undefined;
  const digits = `${int}${frac.padEnd(4, '0')}`.replace(/^0+(?=\d{3})/, '');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
