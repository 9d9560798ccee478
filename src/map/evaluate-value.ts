/**
 * Evaluates one value spec on one row: source (column, constant, concat,
 * company, position), empty handling (default, required), lookup, conversion.
 * Problems are collected, never thrown, so the rest of the document and the
 * rest of the file still map.
 */
import type { ErrorCode } from '../errors.js';
import { excerpt, quoted } from '../policy/excerpt.js';
import { nitCheckDigit, normaliseIdNumber } from '../policy/nit.js';
import type { Problem } from '../validate/problem.js';
import { erpDateToIso } from './convert-date.js';
import {
  erpNumberToAmount,
  erpNumberToDecimal,
  erpNumberToInteger,
  erpNumberToPercent,
} from './convert-number.js';
import type { Mapping, MappingFormat, ValueSpec } from './mapping-types.js';
import { applyCapture, applySplit, splitDateTime, timeOfDay } from './capture.js';
import { ExpressionError, expressionValue } from './expr/evaluate-expression.js';
import type { MasterTables } from './master-tables.js';
import type { DocumentKind } from '../kinds/index.js';

/** What `as: time` and a datetime's `time:` column read: 24-hour, or 12-hour with AM/PM (capture.ts's timeOfDay). */
const TIME_OF_DAY = 'a time of day (HH:mm:ss, or h:mm with AM/PM)';

/** Numbers an expression computes are plain (`12.5`), whatever the export's format. */
const PLAIN = { decimal: '.', thousands: '' } as const;

/**
 * What a spec reads, before lookup and conversion: its text ('' when empty);
 * `plain` when an expression computed it (numbers written `12.5`, not in the
 * export's format); `column` when it is that column's cell as the export wrote it.
 */
interface Source {
  text: string;
  plain: boolean;
  column?: string;
}

export interface CompanyInfo {
  alias: string;
  nit: string;
  [key: string]: unknown;
}

/** One CSV record as the engine sees it. `get` answers '' for an absent column. */
export interface RowView {
  row: number;
  get(column: string): string;
}

export interface EvalContext {
  mapping: Mapping;
  kind: DocumentKind;
  company: CompanyInfo;
  /** Rows blamed by problems (a document field: all the document's rows; a line field: its row). */
  rows: number[];
  position?: number;
  problems: Problem[];
  /** The master-data tables the mapping's `lookup()` reads (map/master-tables.ts). */
  master?: MasterTables;
}

function report(
  ctx: EvalContext,
  code: ErrorCode,
  path: string,
  message: string,
  column: string | undefined,
  value: string,
): void {
  const p: Problem = { code, path, message, rows: ctx.rows, value: excerpt(value) };
  if (column !== undefined) p.column = column;
  ctx.problems.push(p);
}

function describe(spec: ValueSpec): string {
  if (spec.column !== undefined) return `column "${spec.column}"`;
  if (spec.exprText !== undefined)
    return `expression ${excerpt(JSON.stringify(spec.exprText), 120)}`;
  if (spec.const !== undefined) return 'constant';
  return 'value';
}

/** What a spec reads (an expression's value, or the text of its other sources); undefined when a problem was reported. */
function sourceOf(
  spec: ValueSpec,
  row: RowView,
  ctx: EvalContext,
  path: string,
): Source | undefined {
  if (spec.expr !== undefined) {
    try {
      const v = expressionValue(spec.expr, row, ctx.mapping.format, ctx.master);
      // a cell passed on unchanged is read like a column: value, in the mapping's number format
      return v.column === undefined
        ? { text: v.text, plain: true }
        : { text: v.text, plain: false, column: v.column };
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      // an id missing from a master table is reported once per document, not once per field that reads it
      if (
        err.code !== undefined &&
        ctx.problems.some((p) => p.code === err.code && p.message.includes(err.message))
      )
        return undefined;
      report(
        ctx,
        err.code ?? 'EDOC_MAP_EXPRESSION',
        path,
        `${path}: ${err.message} in ${describe(spec)}`,
        err.column,
        err.value ?? '',
      );
      return undefined;
    }
  }
  const text = sourceText(spec, row, ctx, path);
  return text === undefined ? undefined : { text, plain: false, column: spec.column };
}

/** The text of a spec other than an expression before lookup and conversion ('' when empty). */
function sourceText(
  spec: ValueSpec,
  row: RowView,
  ctx: EvalContext,
  path: string,
): string | undefined {
  if (spec.column !== undefined)
    return spec.capture === undefined && spec.split === undefined
      ? row.get(spec.column)
      : cellPart(spec, row, ctx, path);
  if (spec.const !== undefined) return spec.const;
  if (spec.position === true) return ctx.position === undefined ? '' : String(ctx.position);
  if (spec.company === 'nit') return normaliseIdNumber(ctx.company.nit);
  if (spec.company === 'alias') return ctx.company.alias;
  if (spec.company === 'check-digit') return nitCheckDigit(normaliseIdNumber(ctx.company.nit));
  if (spec.concat !== undefined) {
    const parts: string[] = [];
    for (const [i, part] of spec.concat.entries()) {
      const v = evaluateValue(part, row, ctx, `${path}.concat[${i}]`);
      if (typeof v === 'string' && v !== '') parts.push(v);
      else if (v === null) return undefined;
    }
    return parts.join(spec.separator ?? '');
  }
  return '';
}

/** The captured or split part of the cell; undefined (reported) when the cell does not match the pattern. */
function cellPart(
  spec: ValueSpec,
  row: RowView,
  ctx: EvalContext,
  path: string,
): string | undefined {
  const cell = row.get(spec.column!).trim();
  if (cell === '' || spec.capture === undefined)
    return cell === '' ? '' : applySplit(cell, spec.split!);
  const part = applyCapture(cell, spec.capture);
  if (part === undefined) {
    report(
      ctx,
      'EDOC_MAP_NO_MATCH',
      path,
      `${quoted(cell)} in ${describe(spec)} does not match the pattern ${excerpt(JSON.stringify(spec.capture.pattern), 120)}`,
      spec.column,
      cell,
    );
  }
  return part;
}

/**
 * The value, or `undefined` when empty / not applicable to the kind, or `null`
 * when a problem was reported (callers drop the request then).
 */
export function evaluateValue(
  spec: ValueSpec,
  row: RowView,
  ctx: EvalContext,
  path: string,
): unknown {
  if (spec.kinds !== undefined && !spec.kinds.includes(ctx.kind)) return undefined;
  if (spec.company === 'identification') {
    const nit = normaliseIdNumber(ctx.company.nit);
    return {
      DocumentNumber: nit,
      DocumentType: '31',
      CountryCode: 'CO',
      CheckDigit: nitCheckDigit(nit),
    };
  }
  const source = sourceOf(spec, row, ctx, path);
  if (source === undefined) return null;
  const trimmed = source.text.trim();
  if (trimmed === '') {
    if (spec.default !== undefined) return evaluateValue(spec.default, row, ctx, path);
    if (spec.required) {
      report(
        ctx,
        'EDOC_MAP_REQUIRED',
        path,
        `${path} is required but ${describe(spec)} is empty`,
        spec.column,
        '',
      );
      return null;
    }
    return undefined;
  }
  let value = trimmed;
  if (spec.lookup !== undefined) {
    const mapped = ctx.mapping.lookups[spec.lookup][trimmed.toLowerCase()];
    if (mapped === undefined) {
      report(
        ctx,
        'EDOC_MAP_UNKNOWN_CODE',
        path,
        `Unknown code ${quoted(trimmed)} in ${describe(spec)} (lookup table "${spec.lookup}")`,
        source.column,
        trimmed,
      );
      return null;
    }
    // a code the table maps to '' means "no value" (an excluded line: no tax entry at all)
    if (mapped === '') return undefined;
    value = mapped;
  }
  return convert(spec, value, source, row, ctx, path);
}

function convert(
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
  switch (spec.as) {
    case 'text':
      return value;
    case 'decimal':
      return (
        erpNumberToAmount(value, format) ??
        bad(
          'EDOC_MAP_BAD_NUMBER',
          `an amount (decimal "${format.decimal}", thousands "${format.thousands}")`,
        )
      );
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
      const id = normaliseIdNumber(value);
      return /^[0-9A-Za-z]+$/.test(id)
        ? id
        : bad('EDOC_MAP_BAD_NUMBER', 'an identification number');
    }
    case 'time':
      return timeOfDay(value) ?? bad('EDOC_MAP_BAD_DATE', TIME_OF_DAY);
    case 'date':
      return (
        erpDateToIso(value, format.date) ??
        bad('EDOC_MAP_BAD_DATE', `a date in the form ${format.date}`)
      );
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

/** `0,19` -> `19.00`: a rate the export writes as a fraction of one, as the percentage the wire carries. */
function fractionToPercent(value: string, format: MappingFormat): string | undefined {
  const dec = erpNumberToDecimal(value, format);
  if (dec === undefined || dec.startsWith('-')) return undefined;
  const [int, frac = ''] = dec.split('.');
  if (frac.length > 4) return undefined;
  const digits = `${int}${frac.padEnd(4, '0')}`.replace(/^0+(?=\d{3})/, '');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
