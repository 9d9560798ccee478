/**
 * Row roles within one document (mapping `rows:`): which row supplies the document-level values (a payment
 * row whose columns the item rows leave empty) and which rows are lines. A rule that cannot decide a row
 * (a number test on a cell that is not a number) is a problem naming the row and column: the document is
 * not built on a guess.
 */
import { excerpt, quoted } from '../policy/excerpt.js';
import type { EvalContext, RowView } from './eval-context.js';
import { sawNumber } from './eval-context.js';
import { erpNumberToPlain } from './convert-number.js';
import type { Mapping, MappingNode } from './mapping-types.js';
import { evaluateCondition } from './row-condition.js';
import { numberMismatch } from './format-evidence.js';
import type { RowCondition } from './row-condition.js';

/** Evaluates a condition on a row; an undecided cell is reported (EDOC_MAP_BAD_NUMBER) and counts as false. */
export function conditionHolds(
  cond: RowCondition,
  row: RowView,
  ctx: EvalContext,
  rule: string,
): boolean {
  const seen =
    ctx.numbers === undefined
      ? undefined
      : (column: string, text: string): void => sawNumber(ctx, column, text, row);
  const r = evaluateCondition(cond, (c) => row.get(c), ctx.mapping.format, seen);
  if (typeof r === 'boolean') return r;
  const mismatch = numberMismatch(ctx.mapping.format, r.text, r.column, [row.row]);
  ctx.problems.push(
    mismatch ?? {
      code: 'EDOC_MAP_BAD_NUMBER',
      path: '',
      column: r.column,
      value: excerpt(r.text),
      rows: [row.row],
      message: `Row ${row.row}: ${quoted(r.text)} in column "${r.column}" is not a number (decimal "${ctx.mapping.format.decimal}", thousands "${ctx.mapping.format.thousands}"), so ${rule} cannot decide this row`,
    },
  );
  return false;
}

export interface RowRolesOfDocument {
  /** The row whose cells the document fields read. */
  documentRow: RowView;
  /** The rows the consistency check compares, the document row first. */
  consistencyRows: RowView[];
  /** The rows that may be lines (the lines' own `$when` still applies). */
  lineRows: RowView[];
}

function rowList(rows: RowView[]): string {
  const numbers = rows.map((r) => r.row);
  return numbers.length === 1 ? `row ${numbers[0]}` : `rows ${excerpt(numbers.join(', '), 80)}`;
}

export function rowRoles(mapping: Mapping, rows: RowView[], ctx: EvalContext): RowRolesOfDocument {
  const rules = mapping.rows;
  if (rules === undefined || (rules.document === undefined && rules.lines === undefined)) {
    return { documentRow: rows[0], consistencyRows: rows, lineRows: rows };
  }
  let documentRow = rows[0];
  let consistencyRows = rows;
  if (rules.document !== undefined) {
    const matching = rows.filter((r) => conditionHolds(rules.document!, r, ctx, 'rows.document'));
    if (matching.length !== 1) {
      ctx.problems.push({
        code: 'EDOC_MAP_DOCUMENT_ROW',
        path: '',
        rows: (matching.length === 0 ? rows : matching).map((r) => r.row),
        message:
          matching.length === 0
            ? `No row of this document (${rowList(rows)}) matches rows.document, so its document values (payment, totals) have no row to come from`
            : `Several rows of this document match rows.document (${rowList(matching)}); a document takes its values from one row`,
      });
    }
    documentRow = matching[0] ?? rows[0];
    // The other rows leave the document row's columns empty: an empty cell does not disagree, a different one does.
    const doc = documentRow;
    consistencyRows = [
      doc,
      ...rows
        .filter((r) => r !== doc)
        .map((r): RowView => ({
          row: r.row,
          get: (c) => (r.get(c).trim() === '' ? doc.get(c) : r.get(c)),
        })),
    ];
  }
  const lineRows =
    rules.lines !== undefined
      ? rows.filter((r) => conditionHolds(rules.lines!, r, ctx, 'rows.lines'))
      : rows.filter((r) => r !== documentRow);
  if (rules.lines !== undefined) valuedNonLines(mapping, rows, documentRow, lineRows, ctx);
  return { documentRow, consistencyRows, lineRows };
}

/** The columns of a line field read straight from a cell (the first of `names` the lines read). */
function lineColumn(lines: MappingNode | undefined, names: string[]): string | undefined {
  if (lines?.type !== 'object') return undefined;
  for (const [name, node] of lines.entries)
    if (names.includes(name) && node.type === 'value' && node.spec.expr === undefined)
      return node.spec.column;
  return undefined;
}

/**
 * A row that is neither the document row nor a line (`rows.lines` does not hold) but holds a quantity and
 * a unit price other than zero would be a line of value left out: a product row whose code was left blank
 * under `lines: { column: Código producto, filled: true }` issued the invoice without it. Its document is
 * refused naming the row; a row that is no line belongs under `rows.skip`.
 */
function valuedNonLines(
  mapping: Mapping,
  rows: RowView[],
  documentRow: RowView,
  lineRows: RowView[],
  ctx: EvalContext,
): void {
  const quantity = lineColumn(mapping.lines, ['Quantity', 'unidades']);
  const price = lineColumn(mapping.lines, ['UnitPrice', 'valorUnitarioBruto']);
  if (quantity === undefined || price === undefined) return;
  const valued = (r: RowView, c: string): boolean => {
    const n = erpNumberToPlain(r.get(c), ctx.mapping.format);
    return n !== undefined && /[1-9]/.test(n);
  };
  const left = rows.filter(
    (r) => r !== documentRow && !lineRows.includes(r) && valued(r, quantity) && valued(r, price),
  );
  if (left.length === 0) return;
  ctx.problems.push({
    code: 'EDOC_MAP_DOCUMENT_ROW',
    path: '',
    column: quantity,
    rows: left.map((r) => r.row),
    message: `${rowList(left).replace(/^r/, 'R')} of this document ${left.length === 1 ? 'holds' : 'hold'} a quantity and a price (columns "${quantity}", "${price}") but ${left.length === 1 ? 'is' : 'are'} neither a line (rows.lines) nor the document row: the document is not sent without ${left.length === 1 ? 'it' : 'them'}; fill in what makes a row a line, or drop such rows with rows.skip`,
  });
}
