/**
 * The problems csv-source.ts raises about a document's rows as the export holds them (a totals row, a
 * repeated block, rows without a key, a skip test it cannot decide), each naming rows and columns.
 */
import path from 'node:path';
import type { Mapping } from '../map/mapping-types.js';
import type { UndecidedCell } from '../map/row-condition.js';
import { numberMismatch } from '../map/format-evidence.js';
import type { FramedRow } from './csv-framing.js';
import { excerpt, quoted } from '../policy/excerpt.js';
import type { Problem } from '../validate/problem.js';

/** EDOC_MAP_TOTALS_ROW: a row labelled as a totals row that no rows.skip rule dropped. */
function totalsRow(row: number, label: { column: string; text: string }): Problem {
  return {
    code: 'EDOC_MAP_TOTALS_ROW',
    path: '',
    column: label.column,
    value: excerpt(label.text, 20),
    rows: [row],
    message:
      `Row ${row} reads as a totals row ("${excerpt(label.text, 20)}" in column "${excerpt(label.column, 60)}"), not a document line: ` +
      'its sums are never issued; drop it with a rows.skip rule in the mapping (docs/mappings.md "Row roles")',
  };
}

/** Where a row stands: its file, the header's row and number of cells, the delimiter. */
export interface FileLayout {
  file: string;
  headerRow: number;
  width: number;
  delimiter: string;
}

/** The problems a framed row brings to its document whatever it maps to (csv-framing.ts marks them). */
export function rowProblems(mapping: Mapping, framed: FramedRow, layout: FileLayout): Problem[] {
  const row = framed.record.row;
  const out: Problem[] = [];
  if (framed.undecided !== undefined) out.push(skipUndecided(mapping, row, framed.undecided));
  if (framed.totals !== undefined) out.push(totalsRow(row, framed.totals));
  if (framed.overflow !== undefined) out.push(extraCells(layout, { row, cells: framed.overflow }));
  return out;
}

/**
 * EDOC_MAP_EXTRA_CELLS: a delimited row with more cells than its header, the extra ones not blank. The
 * likely cause is the delimiter written unquoted inside a text cell (`Tornillo; 3 mm`): every cell after
 * it stands one column to the right, so a number lands in the next number's column (a quantity read as
 * the price) and no conversion need fail. Which cell split cannot be told, so no column is blamed.
 */
function extraCells(layout: FileLayout, at: { row: number; cells: number }): Problem {
  return {
    code: 'EDOC_MAP_EXTRA_CELLS',
    path: '',
    column: '',
    value: '',
    rows: [at.row],
    message: extraCellsText(layout, at, 'The document is not sent'),
  };
}

/** The message of EDOC_MAP_EXTRA_CELLS; `outcome` says what is not sent (a document, a set of files). */
export function extraCellsText(
  { file, headerRow, width, delimiter }: FileLayout,
  at: { row: number; cells: number },
  outcome: string,
): string {
  const sign = delimiter === '\t' ? 'tab' : `"${delimiter}"`;
  return (
    `${excerpt(path.basename(file), 80)}, row ${at.row}: the row has ${at.cells} cells, the header (row ${headerRow}) names ${width} columns, ` +
    `and the cells past the ${width}th are not blank: its values stand off their columns, most likely because a text cell ` +
    `(a description, a name, an address) holds an unquoted ${sign}. ${outcome}; quote that cell or remove the ${sign} from it, and export again`
  );
}

/**
 * EDOC_MAP_REPEATED_ROWS: a row that repeats, exactly, a row of the same document in an earlier block of
 * it (other documents' rows between). Rows of one key are one document wherever they stand, so an export
 * pasted or exported twice into one file would be issued with every line twice; no total column need
 * catch that (a POS export has none). Two equal rows side by side (two of one item) are not refused.
 */
export function repeatedBlock(row: number, earlier: number, display: string): Problem {
  return {
    code: 'EDOC_MAP_REPEATED_ROWS',
    path: '',
    column: '',
    value: '',
    rows: [earlier, row],
    message:
      `Row ${row} repeats row ${earlier} of document ${excerpt(display, 40)} exactly, with other documents' rows between: ` +
      'the document looks exported twice into this file and would be issued with its lines twice; it is not sent. ' +
      "Remove the repeated rows (or keep each document's rows together)",
  };
}

function rowsText(rows: number[]): string {
  return excerpt(rows.join(', '), 80);
}

/** EDOC_MAP_ROW_WITHOUT_KEY: the rows that continue a document without its key, and what to do. */
export function withoutKey(
  mapping: Mapping,
  rows: number[],
  continuation: number[],
  display: string,
): Problem {
  const key = mapping.key.map((alt) => alt.join(' + ')).join(', or ');
  const parent = rows.find((r) => !continuation.includes(r));
  const what =
    parent === undefined
      ? `the document ${display} (its own rows were skipped by rows.skip)`
      : `document ${display} of row ${parent}`;
  return {
    code: 'EDOC_MAP_ROW_WITHOUT_KEY',
    path: '',
    column: mapping.key.map((alt) => alt.join('+')).join(' or '),
    value: '',
    rows,
    message:
      continuation.length === 1
        ? `Row ${continuation[0]} carries line values but no document key (${key}); it continues ${what}, which is not sent without it: fill the key in on every row, or list the parent columns under framing.fillDown`
        : `Rows ${rowsText(continuation)} carry line values but no document key (${key}); they continue ${what}, which is not sent without them: fill the key in on every row, or list the parent columns under framing.fillDown`,
  };
}

function skipUndecided(mapping: Mapping, row: number, cell: UndecidedCell): Problem {
  const f = mapping.format;
  const mismatch = numberMismatch(f, cell.text, cell.column, [row]);
  return (
    mismatch ?? {
      code: 'EDOC_MAP_BAD_NUMBER',
      path: '',
      column: cell.column,
      value: excerpt(cell.text),
      rows: [row],
      message: `Row ${row}: ${quoted(cell.text)} in column "${cell.column}" is not a number (decimal "${f.decimal}", thousands "${f.thousands}"), so rows.skip cannot decide whether to skip the row`,
    }
  );
}
