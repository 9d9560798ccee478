/**
 * Reconciliation: where the export states a figure (a document total, a tax
 * per category, the net, the withholding, a line total), the engine compares
 * it with what it computed. A difference beyond the mapping's tolerance makes
 * the document invalid (EDOC_MAP_TOTAL_MISMATCH) naming both figures, the
 * column and the rows: nothing is sent.
 */
import { formatAmount } from '../../policy/amount.js';
import { excerpt, quoted } from '../../policy/excerpt.js';
import type { Problem } from '../../validate/problem.js';
import { erpNumberToAmount } from '../convert-number.js';
import type { RowView } from '../eval-context.js';
import type { Mapping, Reconcile } from '../mapping-types.js';
import { tryParseAmount } from '../../policy/amount.js';
import { documentFigure, lineFigure } from './computed-figures.js';
import { numberMismatch } from '../format-evidence.js';
import type { ColumnNumbers } from '../column-numbers.js';

export interface GuardLine {
  fields: Record<string, unknown>;
  rows: number[];
  /** Line fields' exact values where `as: decimal` rounded digits away (derive-types.ts). */
  exact?: Record<string, string>;
}

const NAMES: Record<string, string> = {
  total: 'the total',
  net: 'the net amount (before taxes)',
  gross: 'the gross amount (before discounts)',
  discount: 'the discount',
  withholding: 'the withholding',
};

function describeFigure(figure: string): string {
  return figure.startsWith('tax:') ? `tax ${figure.slice(4)}` : (NAMES[figure] ?? figure);
}

/** The stated figure of one column over some rows: the cells that are filled must agree. */
function stated(
  mapping: Mapping,
  rows: RowView[],
  column: string,
  out: Problem[],
  numbers: ColumnNumbers | undefined,
): number | undefined {
  let value: number | undefined;
  let first: RowView | undefined;
  for (const row of rows) {
    const text = row.get(column).trim();
    if (text === '') continue;
    if (numbers !== undefined && row.typed?.(column) !== true) numbers.seen(column, text, row.row);
    const amount = erpNumberToAmount(text, mapping.format);
    const c = amount === undefined ? undefined : tryParseAmount(amount);
    if (c === undefined) {
      // a stated figure in the other convention refuses the whole file (map/format-evidence.ts)
      const mismatch = numberMismatch(mapping.format, text, column, [row.row]);
      out.push(
        mismatch ?? {
          code: 'EDOC_MAP_BAD_NUMBER',
          path: '',
          column,
          value: excerpt(text),
          rows: [row.row],
          message: `${quoted(text)} in column "${column}" (row ${row.row}) is not an amount (decimal "${mapping.format.decimal}", thousands "${mapping.format.thousands}")`,
        },
      );
      return undefined;
    }
    if (value === undefined) {
      value = c;
      first = row;
    } else if (value !== c) {
      out.push({
        code: 'EDOC_MAP_INCONSISTENT',
        path: '',
        column,
        value: excerpt(text),
        rows: [first!.row, row.row],
        message: `Column "${column}" states ${formatAmount(value)} on row ${first!.row} and ${formatAmount(c)} on row ${row.row}; a stated total must be the same on every row of its document`,
      });
      return undefined;
    }
  }
  return value;
}

function compare(
  r: Reconcile,
  figure: string,
  column: string,
  given: number | undefined,
  computed: number | undefined,
  rows: number[],
  out: Problem[],
  where: string,
): void {
  if (given === undefined || computed === undefined) return;
  const difference = Math.abs(given - computed);
  if (difference <= r.tolerance) return;
  out.push({
    code: 'EDOC_MAP_TOTAL_MISMATCH',
    path: '',
    column,
    value: formatAmount(given),
    rows,
    message: `Column "${column}" states ${describeFigure(figure)} ${where}as ${formatAmount(given)} (${rows.length === 1 ? `row ${rows[0]}` : `rows ${rows.join(', ')}`}); the mapping computed ${formatAmount(computed)}: a difference of ${formatAmount(difference)}, beyond the tolerance ${formatAmount(r.tolerance)}. The document is not sent: check the mapping (a discount, a tax or a withholding it does not read) or the export`,
  });
}

export function reconcile(
  mapping: Mapping,
  rows: RowView[],
  request: Record<string, unknown>,
  lines: GuardLine[],
  numbers?: ColumnNumbers,
): Problem[] {
  const r = mapping.reconcile;
  if (r === undefined) return [];
  const out: Problem[] = [];
  const fields = lines.map((l) => l.fields);
  for (const [figure, column] of r.document) {
    const given = stated(mapping, rows, column, out, numbers);
    const withCell = rows.filter((row) => row.get(column).trim() !== '').map((row) => row.row);
    compare(r, figure, column, given, documentFigure(request, figure, fields), withCell, out, '');
  }
  const byRow = new Map(rows.map((row) => [row.row, row]));
  for (const line of lines) {
    const lineRows = line.rows
      .map((n) => byRow.get(n))
      .filter((row): row is RowView => row !== undefined);
    for (const [figure, column] of r.lines) {
      compare(
        r,
        figure,
        column,
        stated(mapping, lineRows, column, out, numbers),
        lineFigure(line.fields, figure),
        line.rows,
        out,
        'of this line ',
      );
    }
  }
  return out;
}
