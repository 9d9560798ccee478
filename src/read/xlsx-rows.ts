/**
 * Rows of one worksheet of an .xlsx / .xlsm package, streamed: the sheet's XML
 * is inflated and parsed (saxes) chunk by chunk, so memory holds the parser's
 * buffer and the rows of one chunk, whatever the number of rows. What is held
 * whole (read/xlsx-workbook.ts): the shared-strings table, the cell formats, the
 * sheet list. Macros (.xlsm's vbaProject.bin) are never read.
 */
import { SaxesParser } from 'saxes';
import {
  isoDateText,
  lookedText,
  numberText,
  percentText,
  serialDateText,
} from './sheet-values.js';
import type { SheetFormat } from './sheet-values.js';
import { MergedCells, parseRange, type TableRules } from './sheet-merges.js';
import { attr, readWorkbook, unescapeOoxml } from './xlsx-workbook.js';
import type { FoundSheet } from './xlsx-workbook.js';
import { openZip, SheetFault } from './zip-parts.js';

export interface SheetRow {
  /** The row number the spreadsheet shows (1-based). */
  row: number;
  cells: string[];
  /** The cells written from a number (not text, a date or a boolean), by index. */
  typed?: Set<number>;
}

/** Excel's last column, XFD: a reference beyond it is a damaged (or hostile) sheet, not a wide one. */
const MAX_COLUMN = 16_383;

/** Column letters of a cell reference (`AB12`) -> 0-based index; -1 when there are none. */
function columnOf(ref: string | undefined): number {
  if (ref === undefined) return -1;
  let col = 0;
  let i = 0;
  for (; i < ref.length && i < 4; i++) {
    const c = ref.charCodeAt(i);
    if (c < 65 || c > 90) break;
    col = col * 26 + (c - 64);
  }
  if (col - 1 > MAX_COLUMN)
    throw new SheetFault(
      'corrupt',
      `a cell reference "${ref.slice(0, 12)}" lies beyond Excel's last column`,
    );
  return i === 0 ? -1 : col - 1;
}

/**
 * A formula's saved value is read only when the writer computed it. Read as blank (no value, or the
 * empty one openpyxl saves) or as the 0 XlsxWriter saves, a VAT rate or a discount computed by a formula
 * would be silently left out of the document: the file is refused, naming the cell.
 */
function formulaValue(
  c: { col: number; ref?: string; type?: string; v: string; valued?: true },
  row: number,
  found: FoundSheet,
): void {
  // an empty text is a formula's result (`=IF(A2>0,A2,"")`); an empty number, date or boolean is none
  const empty = c.valued === undefined || (c.type !== 'str' && c.v.trim() === '');
  if (!empty && !found.uncomputed) return;
  const where = `cell ${c.ref ?? `${c.col + 1} of row ${row}`} of sheet "${found.name}" holds a formula`;
  throw new SheetFault(
    'unsupported',
    (empty
      ? `${where} without its computed value (the program that wrote the file does not compute formulas)`
      : `${where}, and the workbook asks to recalculate its formulas when opened: the program that wrote it did not compute them, so the value saved with it is not its result`) +
      '; open the file in Excel or LibreOffice and save it again, or export CSV',
  );
}

export interface XlsxSheet {
  name: string;
  /**
   * Streams the rows from the first; each call opens the package again and closes it at its end. A row
   * whose text passes `maxChars` ends the read with a 'too-large' fault before more of it is held.
   */
  rows(signal: AbortSignal | undefined, maxChars: number): AsyncGenerator<SheetRow>;
}

/** Reads the package's sheet list, shared strings and cell formats (then closes it), ready to stream the sheet. */
export async function openXlsxSheet(
  file: string,
  wanted: string | undefined,
  format: SheetFormat,
  rules?: TableRules,
): Promise<XlsxSheet> {
  const { found, strings, dateStyles, clockStyles, percentStyles, lookStyles } = await readWorkbook(
    file,
    wanted,
  );
  const cellText = (type: string | undefined, style: number, v: string, inline: string): string => {
    switch (type) {
      case 's':
        return strings.get(Number(v)) ?? '';
      case 'inlineStr':
        return unescapeOoxml(inline);
      case 'str':
        return unescapeOoxml(v);
      case 'b':
        return v === '1' ? 'TRUE' : 'FALSE';
      case 'e':
        return v;
      case 'd':
        return isoDateText(v, format.date, clockStyles.has(style)) ?? v;
      default: {
        if (v.trim() === '') return '';
        const n = Number(v);
        if (dateStyles.has(style))
          return (
            serialDateText(n, found.date1904, format.date, clockStyles.has(style)) ??
            numberText(n, format.decimal)
          );
        if (percentStyles.has(style)) return percentText(n, format.decimal);
        const look = lookStyles.get(style);
        return look === undefined
          ? numberText(n, format.decimal)
          : lookedText(n, look, format.decimal);
      }
    }
  };
  async function* rows(
    signal: AbortSignal | undefined,
    maxChars: number,
  ): AsyncGenerator<SheetRow> {
    let rowChars = 0;
    const parser = new SaxesParser();
    const ready: SheetRow[] = [];
    let current: SheetRow | undefined;
    let lastRow = 0;
    // `formula`/`valued`: a formula with no cached value (<f> without <v>) was never computed by the writer
    let cell:
      | {
          col: number;
          ref?: string;
          type?: string;
          style: number;
          v: string;
          inline: string;
          formula?: true;
          valued?: true;
        }
      | undefined;
    let into: 'v' | 'is' | undefined;
    let phonetic = 0;
    const merged = new MergedCells(rules?.isHeader, rules?.drops);
    parser.on('error', (err) => {
      throw new SheetFault(
        'corrupt',
        `sheet "${found.name}" is not well-formed XML (${err.message})`,
      );
    });
    parser.on('opentag', (t) => {
      switch (t.name) {
        case 'row': {
          rowChars = 0;
          const r = Number(attr(t, 'r') ?? lastRow + 1);
          current = { row: Number.isInteger(r) && r > 0 ? r : lastRow + 1, cells: [] };
          lastRow = current.row;
          break;
        }
        case 'c': {
          const col = columnOf(attr(t, 'r'));
          if (col < 0 && (current?.cells.length ?? 0) > MAX_COLUMN)
            throw new SheetFault('corrupt', "a row has more cells than Excel's last column");
          cell = {
            col: col >= 0 ? col : (current?.cells.length ?? 0),
            ref: attr(t, 'r'),
            type: attr(t, 't'),
            style: Number(attr(t, 's') ?? 0),
            v: '',
            inline: '',
          };
          break;
        }
        case 'f':
          if (cell !== undefined) cell.formula = true;
          break;
        case 'v':
          into = 'v';
          if (cell !== undefined) cell.valued = true;
          break;
        case 'is':
          into = 'is';
          break;
        case 'rPh':
          phonetic++;
          break;
        case 'mergeCell': {
          // after the rows (<mergeCells> follows <sheetData>): a merge over the table refuses the file
          const ref = attr(t, 'ref') ?? '';
          const range = parseRange(ref);
          if (range !== undefined)
            merged.merge(found.name, ref, range.firstRow, range.lastRow, range.cells);
          break;
        }
        default:
          break;
      }
    });
    parser.on('text', (text) => {
      if (cell === undefined || phonetic > 0) return;
      if (into === undefined) return;
      rowChars += text.length;
      if (rowChars > maxChars)
        throw new SheetFault(
          'too-large',
          `row ${current?.row ?? lastRow} is longer than ${maxChars} characters`,
        );
      if (into === 'v') cell.v += text;
      else cell.inline += text;
    });
    parser.on('closetag', (t) => {
      if (t.name === 'v') into = undefined;
      else if (t.name === 'is') into = undefined;
      else if (t.name === 'rPh') phonetic--;
      else if (t.name === 'c' && cell !== undefined && current !== undefined) {
        if (cell.formula && cell.type !== 'inlineStr') formulaValue(cell, current.row, found);
        const cells = current.cells;
        while (cells.length < cell.col) cells.push('');
        cells[cell.col] = cellText(cell.type, cell.style, cell.v, cell.inline);
        // a number cell (no type, or `n`): its text is the number written out, no text of the export
        if ((cell.type === undefined || cell.type === 'n') && cell.v.trim() !== '')
          (current.typed ??= new Set()).add(cell.col);
        cell = undefined;
      } else if (t.name === 'row' && current !== undefined) {
        merged.row(current.row, current.cells);
        ready.push(current);
        current = undefined;
      }
    });
    const zip = await openZip(file);
    try {
      const stream = await zip.stream(found.sheet);
      stream.setEncoding('utf8');
      try {
        for await (const chunk of stream as AsyncIterable<string>) {
          signal?.throwIfAborted();
          parser.write(chunk);
          for (const row of ready) yield row;
          ready.length = 0;
        }
        parser.close();
        for (const row of ready) yield row;
      } finally {
        stream.destroy();
      }
    } catch (err) {
      if (err instanceof SheetFault || (err instanceof Error && err.name === 'AbortError'))
        throw err;
      throw new SheetFault(
        'corrupt',
        `sheet "${found.name}" cannot be inflated (${(err as Error).message})`,
      );
    } finally {
      zip.close();
    }
  }
  return { name: found.name, rows };
}
