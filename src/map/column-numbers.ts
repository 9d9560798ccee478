/**
 * What a column's number cells show of the export's convention, gathered as the cells are converted
 * and judged once the file has been read. A cell with one separator, the mapping's decimal one,
 * followed by exactly three digits after an integer part of 1–3 digits not starting with 0 (`12,500`,
 * `164,710` under `decimal: ","`) reads in the mapping's format (12.5) and as a whole number grouped in
 * the other convention (12500): it is ambiguous. A cell that reads in the mapping's format with another
 * shape (`12,5`, `0,125`, `1234,567`, `1.234,50`) proves the mapping's convention for its column; a
 * whole number without separator (`98000`) is what an export grouping thousands writes below a thousand
 * and beside its decimals-free amounts. A column with an ambiguous cell and no proving cell reads like
 * whole amounts grouped in the other convention, which the mapping would issue 1000 times too small:
 * the file is refused whole (EDOC_MAP_FORMAT_MISMATCH, as format-evidence.ts), unless the mapping says
 * the column has three decimals (`format.threeDecimals`). That holds with no whole number in the column
 * too: a column of prices between 1,000 and 999,999 is all ambiguous, and a refused three-decimal list
 * costs one line in the mapping where a misread one costs false legal documents.
 */
import { excerpt, quoted } from '../policy/excerpt.js';
import type { Problem } from '../validate/problem.js';
import { erpNumberToDecimal, erpNumberToPlain } from './convert-number.js';
import { normaliseColumnName } from './column-name.js';
import { otherNumberFormat } from './format-evidence.js';
import type { MappingFormat } from './mapping-types.js';

type NumberFormat = Pick<MappingFormat, 'decimal' | 'thousands' | 'threeDecimals'>;

interface Cell {
  text: string;
  row: number;
}

interface ColumnEvidence {
  /** A cell read only in the mapping's convention, or the mapping says the column has three decimals. */
  proven: boolean;
  ambiguous?: Cell;
  whole?: Cell;
}

const WHOLE = /^(?:\$\s*)?[+-]?\d+(?:\s*%)?$/;

export class ColumnNumbers {
  private readonly columns = new Map<string, ColumnEvidence>();
  private readonly ambiguous: RegExp;
  private readonly stated: Set<string>;

  constructor(private readonly format: NumberFormat) {
    const d = format.decimal === '.' ? '\\.' : ',';
    this.ambiguous = new RegExp(`^(?:\\$\\s*)?[+-]?[1-9]\\d{0,2}${d}\\d{3}(?:\\s*%)?$`);
    this.stated = new Set((format.threeDecimals ?? []).map(normaliseColumnName));
  }

  /** A cell of the export (`text`, not typed as a number in a spreadsheet) read as a number. */
  seen(column: string, text: string, row: number): void {
    let c = this.columns.get(column);
    if (c === undefined) {
      c = { proven: this.stated.has(normaliseColumnName(column)) };
      this.columns.set(column, c);
    }
    if (c.proven) return;
    const t = text.trim();
    if (t === '') return;
    // as erpNumberToPlain reads a cell: a leading `$`, a sign; a percentage's `%` after it
    if (WHOLE.test(t)) c.whole ??= { text: t, row };
    else if (this.ambiguous.test(t)) c.ambiguous ??= { text: t, row };
    // `12,5`, `0,125`, `1.234,50`: the mapping's convention, whatever the other cells say
    else if (erpNumberToPlain(t.replace(/\s*%$/, ''), this.format) !== undefined) c.proven = true;
  }

  /**
   * EDOC_MAP_FORMAT_MISMATCH for the first column read like whole amounts grouped in the other
   * convention; `display` gives a column's name as the export's header writes it.
   */
  verdict(display: (column: string) => string = (c) => c): Problem | undefined {
    const merged = new Map<string, ColumnEvidence & { column: string }>();
    for (const [column, c] of this.columns) {
      const key = normaliseColumnName(column);
      const m = merged.get(key);
      if (m === undefined) merged.set(key, { ...c, column });
      else {
        m.proven ||= c.proven;
        m.ambiguous ??= c.ambiguous;
        m.whole ??= c.whole;
      }
    }
    for (const c of merged.values())
      if (!c.proven && c.ambiguous !== undefined)
        return this.refusal(display(c.column), c.ambiguous, c.whole);
    return undefined;
  }

  private refusal(column: string, cell: Cell, whole: Cell | undefined): Problem {
    const f = this.format;
    const other = otherNumberFormat(f);
    const text = cell.text.replace(/\s*%$/, '');
    const mine = erpNumberToDecimal(text, f);
    const theirs = erpNumberToDecimal(text, other);
    const name = /^[\p{L}\p{N}_ ./-]+$/u.test(column) ? column : JSON.stringify(column);
    const evidence =
      whole === undefined
        ? 'every number in it has exactly three decimals'
        : `row ${whole.row} holds ${quoted(whole.text)}, a whole number written without a separator`;
    return {
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      path: '',
      column,
      value: excerpt(cell.text),
      rows: [cell.row],
      message:
        `${quoted(cell.text)} reads as ${mine} in the mapping's format (decimal "${f.decimal}", ` +
        `thousands "${f.thousands}") and as ${theirs} with decimal "${other.decimal}", thousands ` +
        `"${other.thousands}": the column's numbers do not show which, since none has decimals other ` +
        `than three digits after "${f.decimal}", and ${evidence}. The column reads like whole amounts grouped in thousands with ` +
        `"${f.decimal}", which would be issued 1000 times too small. Nothing of the file is sent: ` +
        `if the export groups thousands, fix the mapping's format (decimal: "${other.decimal}", ` +
        `thousands: "${other.thousands}"); if the column has three decimals, say so in the ` +
        `mapping's format (threeDecimals: [${name}]); and drop the file again`,
    };
  }
}
