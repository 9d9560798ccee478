/**
 * Merged cells in a spreadsheet: only the first cell of a merged range holds the value, the others are
 * blank in the file although a person sees the value across them (a customer merged down over its lines,
 * a VAT rate merged across two columns). Read as blank, such a cell is a tax, a discount or a party left
 * out. A merge that ends above the header (a title over the table) is harmless; any other refuses the
 * file, naming the range. The header is the one the mapping's `framing` names (its row, or the first row
 * holding its columns), else the first row with two cells or more.
 */
import type { Framing } from '../map/mapping-types.js';
import { holdsAll } from './csv-header-locate.js';
import { SheetFault } from './zip-parts.js';

/** Whether a row (numbered as the spreadsheet shows it) is the table's header. */
export type HeaderTest = (row: number, cells: readonly string[]) => boolean;

function twoCells(_row: number, cells: readonly string[]): boolean {
  let filled = 0;
  for (const c of cells) if (c.trim() !== '' && ++filled >= 2) return true;
  return false;
}

/**
 * The header as csv-header-locate.ts finds it: a title block above it may hold a label and its value in
 * two cells (`Empresa:` `Demo S.A.S.`), and taken for the header, it would make a title merged below it
 * refuse a sheet whose table holds no merge.
 */
export function headerTest(framing: Framing | undefined): HeaderTest {
  const { headerRow, findHeader } = framing ?? {};
  if (headerRow !== undefined) return (row) => row >= headerRow;
  if (findHeader !== undefined) return (_row, cells) => holdsAll(cells, findHeader);
  return twoCells;
}

export class MergedCells {
  private header: number | undefined;

  constructor(private readonly isHeader: HeaderTest = twoCells) {}

  /** Each row as it is read (rows numbered as the spreadsheet shows them). */
  row(row: number, cells: readonly string[]): void {
    if (this.header === undefined && this.isHeader(row, cells)) this.header = row;
  }

  /** A merged range (rows 1-based, inclusive), once every row was read. */
  merge(sheet: string, range: string, firstRow: number, lastRow: number, cells: number): void {
    if (cells <= 1) return;
    if (this.header !== undefined && lastRow < this.header) return;
    throw new SheetFault(
      'unsupported',
      `cells ${range.slice(0, 24)} of sheet "${sheet}" are merged (rows ${firstRow} to ${lastRow}): only the first ` +
        'holds the value, the others would be read blank; unmerge them and fill each cell, or export CSV',
    );
  }
}

/** `B5:D6` -> rows 5 and 6, 6 cells; undefined when it is no range. */
export function parseRange(
  ref: string,
): { firstRow: number; lastRow: number; cells: number } | undefined {
  const m = /^([A-Z]{1,3})(\d{1,7}):([A-Z]{1,3})(\d{1,7})$/.exec(ref.trim().replaceAll('$', ''));
  if (m === null) return undefined;
  const col = (s: string): number => [...s].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
  const [r1, r2] = [Number(m[2]), Number(m[4])];
  const [c1, c2] = [col(m[1]), col(m[3])];
  return {
    firstRow: Math.min(r1, r2),
    lastRow: Math.max(r1, r2),
    cells: (Math.abs(r2 - r1) + 1) * (Math.abs(c2 - c1) + 1),
  };
}
