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
import { erpDateToIso, erpTimeToIso } from './convert-date.js';
import { erpNumberToAmount, erpNumberToDecimal, erpNumberToInteger, erpNumberToPercent } from './convert-number.js';
import type { Mapping, ValueSpec } from './mapping-types.js';
import type { DocumentKind } from '../kinds/index.js';

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
}

function report(ctx: EvalContext, code: ErrorCode, path: string, message: string, column: string | undefined, value: string): void {
  const p: Problem = { code, path, message, rows: ctx.rows, value: excerpt(value) };
  if (column !== undefined) p.column = column;
  ctx.problems.push(p);
}

function describe(spec: ValueSpec): string {
  if (spec.column !== undefined) return `column "${spec.column}"`;
  if (spec.const !== undefined) return 'constant';
  return 'value';
}

/** The text of a spec before lookup and conversion ('' when empty). */
function sourceText(spec: ValueSpec, row: RowView, ctx: EvalContext, path: string): string | undefined {
  if (spec.column !== undefined) return row.get(spec.column);
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

/**
 * The value, or `undefined` when empty / not applicable to the kind, or `null`
 * when a problem was reported (callers drop the request then).
 */
export function evaluateValue(spec: ValueSpec, row: RowView, ctx: EvalContext, path: string): unknown {
  if (spec.kinds !== undefined && !spec.kinds.includes(ctx.kind)) return undefined;
  if (spec.company === 'identification') {
    const nit = normaliseIdNumber(ctx.company.nit);
    return { DocumentNumber: nit, DocumentType: '31', CountryCode: 'CO', CheckDigit: nitCheckDigit(nit) };
  }
  const text = sourceText(spec, row, ctx, path);
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (trimmed === '') {
    if (spec.default !== undefined) return evaluateValue(spec.default, row, ctx, path);
    if (spec.required) {
      report(ctx, 'EDOC_MAP_REQUIRED', path, `${path} is required but ${describe(spec)} is empty`, spec.column, '');
      return null;
    }
    return undefined;
  }
  let value = trimmed;
  if (spec.lookup !== undefined) {
    const mapped = ctx.mapping.lookups[spec.lookup][trimmed.toLowerCase()];
    if (mapped === undefined) {
      report(ctx, 'EDOC_MAP_UNKNOWN_CODE', path, `Unknown code ${quoted(trimmed)} in ${describe(spec)} (lookup table "${spec.lookup}")`, spec.column, trimmed);
      return null;
    }
    value = mapped;
  }
  return convert(spec, value, row, ctx, path);
}

function convert(spec: ValueSpec, value: string, row: RowView, ctx: EvalContext, path: string): string | null {
  try {
    return convertUnsafe(spec, value, row, ctx, path);
  } catch (err) {
    // Amounts beyond the safe range of cents throw in policy/amount.ts; here that is one bad cell.
    report(ctx, 'EDOC_MAP_BAD_NUMBER', path, `${quoted(value)} in ${describe(spec)} cannot be converted: ${excerpt((err as Error).message, 200)}`, spec.column, value);
    return null;
  }
}

function convertUnsafe(spec: ValueSpec, value: string, row: RowView, ctx: EvalContext, path: string): string | null {
  const format = ctx.mapping.format;
  const bad = (code: ErrorCode, what: string): null => {
    report(ctx, code, path, `${quoted(value)} in ${describe(spec)} is not ${what}`, spec.column, value);
    return null;
  };
  switch (spec.as) {
    case 'text':
      return value;
    case 'decimal':
      return erpNumberToAmount(value, format) ?? bad('EDOC_MAP_BAD_NUMBER', `an amount (decimal "${format.decimal}", thousands "${format.thousands}")`);
    case 'number':
      return erpNumberToDecimal(value, format) ?? bad('EDOC_MAP_BAD_NUMBER', `a number (decimal "${format.decimal}", thousands "${format.thousands}")`);
    case 'integer':
      return erpNumberToInteger(value, format) ?? bad('EDOC_MAP_BAD_NUMBER', 'a whole number');
    case 'percent':
      return erpNumberToPercent(value, format) ?? bad('EDOC_MAP_BAD_NUMBER', 'a percentage with at most two decimals');
    case 'id-number': {
      const id = normaliseIdNumber(value);
      return /^[0-9A-Za-z]+$/.test(id) ? id : bad('EDOC_MAP_BAD_NUMBER', 'an identification number');
    }
    case 'time':
      return erpTimeToIso(value) ?? bad('EDOC_MAP_BAD_DATE', 'a time of day (HH:mm:ss)');
    case 'date':
      return erpDateToIso(value, format.date) ?? bad('EDOC_MAP_BAD_DATE', `a date in the form ${format.date}`);
    case 'datetime': {
      const date = erpDateToIso(value, format.date);
      if (date === undefined) return bad('EDOC_MAP_BAD_DATE', `a date in the form ${format.date}`);
      if (spec.time === undefined) return `${date}T00:00:00`;
      const timeText = row.get(spec.time).trim();
      if (timeText === '') return `${date}T00:00:00`;
      const time = erpTimeToIso(timeText);
      if (time === undefined) {
        report(ctx, 'EDOC_MAP_BAD_DATE', path, `${quoted(timeText)} in column "${spec.time}" is not a time of day (HH:mm:ss)`, spec.time, timeText);
        return null;
      }
      return `${date}T${time}`;
    }
  }
}
