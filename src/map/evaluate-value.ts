/**
 * Evaluates one value spec on one row: source (column, constant, concat,
 * company, position), empty handling (default, required), lookup, then the
 * conversion in convert-value.ts. Problems are collected, never thrown, so the
 * rest of the document and the rest of the file still map.
 */
import { excerpt, quoted } from '../policy/excerpt.js';
import { nitCheckDigit, normaliseIdNumber } from '../policy/nit.js';
import type { ValueSpec } from './mapping-types.js';
import { applyCapture, applySplit } from './capture.js';
import { convert } from './convert-value.js';
import type { EvalContext, RowView, Source } from './eval-context.js';
import { describe, report, sawNumber } from './eval-context.js';
import { ExpressionError, expressionValue } from './expr/evaluate-expression.js';

/** What a spec reads (an expression's value, or the text of its other sources); undefined when a problem was reported. */
function sourceOf(
  spec: ValueSpec,
  row: RowView,
  ctx: EvalContext,
  path: string,
): Source | undefined {
  if (spec.expr !== undefined) {
    try {
      const seen =
        ctx.numbers === undefined
          ? undefined
          : (column: string, text: string): void => sawNumber(ctx, column, text, row);
      const v = expressionValue(spec.expr, row, ctx.mapping.format, ctx.master, seen);
      // a cell passed on unchanged is read like a column: value, in the mapping's number format
      if (v.column === undefined) return { text: v.text, plain: true };
      return { text: v.text, plain: false, column: v.column, ...(v.master && { master: true }) };
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      if (err.code === 'EDOC_MAP_FORMAT_MISMATCH') {
        const p = { code: err.code, path, message: err.message, rows: [row.row] };
        ctx.problems.push({ ...p, column: err.column!, value: excerpt(err.value ?? '') });
        return undefined;
      }
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
