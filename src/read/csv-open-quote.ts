/**
 * A quote opened at the start of a cell and closed only rows further down (`"Tubo 3/4` typed where
 * `Tubo 3/4"` was meant, in an export that does not quote) is valid CSV: the rows in between are read
 * into that one cell, their documents vanish from the file and the row that closes the quote lends its
 * last cells to the first row's document. A cell with a line break that holds a whole row's worth of
 * delimiters (the header's cells minus one) reads as such rows, not as a multi-line description: the file
 * is refused, naming the row and column where the quote opens.
 */
import path from 'node:path';
import { EdocError } from '../errors.js';
import { excerpt } from '../policy/excerpt.js';
import type { CsvRecord } from './csv-records.js';

const LINE_BREAK = /\r\n|\r|\n/;

function count(text: string, delimiter: string): number {
  let n = 0;
  for (let i = text.indexOf(delimiter); i >= 0; i = text.indexOf(delimiter, i + 1)) n += 1;
  return n;
}

export function checkOpenQuote(
  file: string,
  record: CsvRecord,
  delimiter: string,
  headerCells: readonly string[],
  headerRow: number,
): void {
  const width = headerCells.length;
  if (width < 2 || record.row <= headerRow) return;
  for (let i = 0; i < record.cells.length; i++) {
    const cell = record.cells[i];
    if (!LINE_BREAK.test(cell) || count(cell, delimiter) < width - 1) continue;
    const lines = cell.split(LINE_BREAK).length;
    const sign = delimiter === '\t' ? 'tab' : `"${delimiter}"`;
    const column = excerpt((headerCells[i] ?? '').trim() || `column ${i + 1}`, 60);
    throw new EdocError(
      'EDOC_MAP_CSV_SYNTAX',
      `${excerpt(path.basename(file), 80)}, row ${record.row}, column "${column}": a quoted cell runs over ${lines} lines ` +
        `and holds ${count(cell, delimiter)} ${sign}, a whole row's worth: most likely a quote (") that opens this cell ` +
        'is closed only rows further down, and the rows between were read into this one cell. Nothing of the file is sent; ' +
        'remove the quote or close it in its own cell, and export again',
      { file, row: record.row, column },
    );
  }
}
