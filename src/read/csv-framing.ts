/**
 * Rows of a delimited export as the grouping sees them, decided one record at a time so both passes of
 * csv-source.ts decide alike (the state is the row above only, whatever the size of the file):
 * - records up to the header, and blank records, are no rows;
 * - fill-down (`framing.fillDown`): a row without a document key takes the blank cells of the key columns
 *   and of the listed columns from the row above (one-to-many exports leave the parent columns blank on
 *   item rows); a row with its own key is never filled, so a new document never borrows the one above's;
 * - `rows.skip` rows are dropped (footers, totals, cancelled receipts); they still count as the row above;
 * - a row that still has no key but carries line values is a continuation of the document above: it joins
 *   that document and marks it, so the document is invalid with it (EDOC_MAP_ROW_WITHOUT_KEY), never
 *   issued without it, and the row never becomes a document of its own;
 * - a row not skipped that reads as a totals row (a cell that is only `TOTAL`, `Total general`, `Subtotal`,
 *   `Gran total`, `Suma`…, on a row without its own key, or in a key or line column) is marked: the document it
 *   would join, or would be, is refused (EDOC_MAP_TOTALS_ROW), never issued with its sums as a line;
 * - a delimited row with more cells than the header whose extra cells are not blank is marked, and never
 *   skipped (its cells stand one column off, so a skip test on them decides nothing): the document it
 *   joins is refused (EDOC_MAP_EXTRA_CELLS). Blank extra cells (a trailing delimiter) are no sign.
 */
import { columnsOf, specColumns } from '../map/compile-node.js';
import type { Mapping } from '../map/mapping-types.js';
import type { ColumnNumbers } from '../map/column-numbers.js';
import { evaluateCondition } from '../map/row-condition.js';
import type { UndecidedCell } from '../map/row-condition.js';
import type { CsvRecord } from './csv-records.js';

/** Prefix of the key of a row without one that stands alone (it becomes an invalid document by itself). */
export const NO_KEY = '\u0000';

export interface FramedRow {
  record: CsvRecord;
  /** The record's cells, with filled-down cells in place. */
  cells: string[];
  key: string;
  display: string;
  /** A row without a key of its own that joined the document above it. */
  continuation: boolean;
  /** A `rows.skip` number test met a cell that is not a number: the row is kept, and its document refused. */
  undecided?: UndecidedCell;
  /** The row reads as a totals row: the column and cell that say so (the document is refused). */
  totals?: { column: string; text: string };
  /** The row has more cells than the header and the extra ones are not blank: its number of cells. */
  overflow?: number;
}

/** A cell that only labels a totals row (`TOTAL`, `Total general:`, `Subtotal`, `Gran total`, `Sumas`). */
/** The first letter any totals label starts with (after blanks): a cheap test before TOTALS_LABEL. */
const TOTALS_FIRST = /^\s*[tsg]/i;
const TOTALS_LABEL =
  /^(?:sub[- ]?)?total(?:es|s)?(?: general| factura| documento)?:?$|^(?:gran|grand) total:?$|^sumas?:?$/i;

function isBlank(cells: string[]): boolean {
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i];
    if (c !== undefined && c.trim() !== '') return false;
  }
  return true;
}

/** Columns whose cells are line values: a keyless row holding one continues a document. */
function lineColumns(mapping: Mapping): string[] {
  const out = new Set<string>();
  if (mapping.lines !== undefined) columnsOf(mapping.lines, out);
  for (const d of mapping.derive)
    for (const spec of Object.values(d.lineInputs)) specColumns(spec, out);
  if (mapping.concepts !== undefined) {
    out.add(mapping.concepts.column);
    for (const fields of mapping.concepts.codes.values())
      for (const [, spec] of fields) specColumns(spec, out);
  }
  for (const alt of mapping.key) for (const c of alt) out.delete(c);
  return [...out];
}

/**
 * The width a row is held to: up to the header's last named column. Blank cells after it (an export that
 * ends every line, header included, with a delimiter) are no columns, so a row shifted by one cell is
 * still seen past them.
 */
export function namedWidth(headerCells: readonly string[]): number {
  let n = headerCells.length;
  while (n > 0 && headerCells[n - 1].trim() === '') n -= 1;
  return n;
}

/** The number of cells of a row whose cells past `width` are not all blank; undefined otherwise. */
export function overflowOf(cells: readonly string[], width: number): number | undefined {
  if (cells.length <= width) return undefined;
  for (let i = width; i < cells.length; i++) if (cells[i].trim() !== '') return cells.length;
  return undefined;
}

export class RowFramer {
  private readonly keyAlternatives: number[][];
  /** The column names of keyAlternatives, alternative for alternative. */
  private readonly keyColumns: string[][];
  private readonly fill: number[];
  private readonly lineCells: number[];
  private readonly get: (cells: string[]) => (column: string) => string;
  private above: string[] | undefined;
  private last: { key: string; display: string } | undefined;

  /**
   * The cells a keyed row's totals label is looked for in, each once: the key columns and the line
   * columns (a "Subtotal factura" row repeating its invoice's key would otherwise be a line of it).
   */
  private readonly labelCells: number[];

  /**
   * `columnName`: the header's name of a cell index (for the totals-row problem). `width`: the header's
   * number of cells, where a row's cells past it are a sign of an unquoted delimiter (delimited text
   * only: a spreadsheet's cells cannot shift).
   */
  /** Told of each cell a `rows.skip` number test reads (map/column-numbers.ts); the documents' pass sets it. */
  numbers?: ColumnNumbers;

  constructor(
    private readonly mapping: Mapping,
    private readonly headerRow: number,
    private readonly indexOf: (column: string) => number,
    private readonly columnName: (index: number) => string = (i) => `column ${i + 1}`,
    private readonly width?: number,
  ) {
    this.keyColumns = mapping.key.filter((alt) => alt.every((c) => indexOf(c) >= 0));
    this.keyAlternatives = this.keyColumns.map((alt) => alt.map(indexOf));
    const fillDown = mapping.framing?.fillDown;
    this.fill =
      fillDown === undefined
        ? []
        : [...new Set([...mapping.key.flat(), ...fillDown].map(indexOf).filter((i) => i >= 0))];
    this.lineCells = lineColumns(mapping)
      .map(indexOf)
      .filter((i) => i >= 0);
    this.labelCells = [
      ...new Set([
        ...mapping.key
          .flat()
          .map(indexOf)
          .filter((i) => i >= 0),
        ...this.lineCells,
      ]),
    ].sort((a, b) => a - b);
    this.get = (cells) => (column) => {
      const i = indexOf(column);
      return i < 0 ? '' : (cells[i] ?? '');
    };
  }

  // plain loops: this runs on every row of both passes (no iterator, no array per alternative tried)
  private keyOf(cells: string[]): { key: string; display: string } | undefined {
    const alternatives = this.keyAlternatives;
    alternatives: for (let a = 0; a < alternatives.length; a++) {
      const alt = alternatives[a];
      let key = `${a}`;
      let display = '';
      for (let j = 0; j < alt.length; j++) {
        const value = (cells[alt[j]] ?? '').trim();
        if (value === '') continue alternatives;
        key += `\u001f${value}`;
        display += value;
      }
      return { key, display };
    }
    return undefined;
  }

  /**
   * The keys of the alternatives after the one `key` was taken from that a row of its document fills
   * too: a POS receipt keyed by `prefijo + numero` whose row also carries its `ticket`. A document keyed
   * by one of them is the same sale written without its number (split-keys.ts).
   */
  laterKeys(key: string, get: (column: string) => string): string[] {
    const alternatives = this.keyColumns;
    if (alternatives.length < 2 || key.startsWith(NO_KEY)) return [];
    const out: string[] = [];
    alternatives: for (
      let a = Number(key.slice(0, key.indexOf('\u001f'))) + 1;
      a < alternatives.length;
      a++
    ) {
      let later = `${a}`;
      for (const column of alternatives[a]) {
        const value = get(column).trim();
        if (value === '') continue alternatives;
        later += `\u001f${value}`;
      }
      out.push(later);
    }
    return out;
  }

  /** `prefijo + ticket (POS, T-55012)`: a key as the export's columns and cells say it. */
  describeKey(key: string): string {
    const [a, ...values] = key.split('\u001f');
    const columns = this.keyColumns[Number(a)] ?? [];
    return `${columns.join(' + ')} (${values.join(', ')})`;
  }

  /**
   * The record as a row of a document, or undefined when it is none (title, header, blank, skipped).
   * `keyOnly`: only the key is wanted (the key pass), so the totals-row label is not looked for.
   */
  frame(record: CsvRecord, keyOnly = false): FramedRow | undefined {
    if (record.row <= this.headerRow || isBlank(record.cells)) return undefined;
    let cells = record.cells;
    let keyed = this.keyOf(cells);
    const ownKey = keyed !== undefined;
    if (keyed === undefined && this.fill.length > 0 && this.above !== undefined) {
      const above = this.above;
      cells = [...cells];
      for (const i of this.fill)
        if ((cells[i] ?? '').trim() === '' && (above[i] ?? '') !== '') cells[i] = above[i];
      keyed = this.keyOf(cells);
    }
    this.above = cells;
    const overflow = this.width === undefined ? undefined : overflowOf(record.cells, this.width);
    let undecided: UndecidedCell | undefined;
    const skip = this.mapping.rows?.skip;
    if (skip !== undefined && overflow === undefined) {
      const numbers = this.numbers;
      const seen =
        numbers === undefined
          ? undefined
          : (column: string, text: string): void => {
              if (record.typed?.has(this.indexOf(column)) !== true)
                numbers.seen(column, text, record.row);
            };
      const r = evaluateCondition(skip, this.get(cells), this.mapping.format, seen);
      if (r === true) {
        if (keyed !== undefined) this.last = keyed;
        return undefined;
      }
      if (r !== false) undecided = r;
    }
    let continuation = false;
    if (
      keyed === undefined &&
      this.last !== undefined &&
      this.lineCells.some((i) => (cells[i] ?? '').trim() !== '')
    ) {
      keyed = this.last;
      continuation = true;
    }
    if (keyed !== undefined) this.last = keyed;
    const out: FramedRow = {
      record,
      cells,
      key: keyed?.key ?? `${NO_KEY}${record.row}`,
      display: keyed?.display ?? '',
      continuation,
    };
    if (undecided !== undefined) out.undecided = undecided;
    if (overflow !== undefined) out.overflow = overflow;
    if (keyOnly) return out;
    const totals = this.totalsLabel(record.cells, ownKey);
    if (totals !== undefined) out.totals = totals;
    return out;
  }

  /** The cell that labels a totals row: any cell on a row without its own key, else a key or line cell. */
  private totalsLabel(
    cells: string[],
    ownKey: boolean,
  ): { column: string; text: string } | undefined {
    const n = ownKey ? this.labelCells.length : cells.length;
    for (let j = 0; j < n; j++) {
      const i = ownKey ? this.labelCells[j] : j;
      const cell = cells[i];
      if (cell === undefined || cell.length > 40 || !TOTALS_FIRST.test(cell)) continue; // most cells: a number, a name, a date
      const text = cell.trim();
      if (text.length <= 20 && TOTALS_LABEL.test(text)) return { column: this.columnName(i), text };
    }
    return undefined;
  }
}
