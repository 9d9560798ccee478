/**
 * Merged cells in a spreadsheet: only the first cell of a merged range holds the value, the others are
 * blank in the file although a person sees the value across them (a customer merged down over its lines,
 * a VAT rate merged across two columns). Read as blank, such a cell is a tax, a discount or a party left
 * out. A merge that ends above the header (a title over the table) is harmless, and so is one below it
 * on rows the mapping drops (`rows.skip`: a merged `TOTAL` footer, blank rows), as the same framer as
 * csv-source.ts decides them: no document reads them. Any other refuses the file, naming the range. The
 * header is the one the mapping's `framing` names (its row, or the first row holding its columns), else
 * the first row with two cells or more.
 */
import type { Framing, Mapping } from '../map/mapping-types.js';
import { RowFramer } from './csv-framing.js';
import { indexHeader, normaliseColumnName } from './csv-header.js';
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

/** Given the header, whether a row below it is dropped (no document reads it). */
export type RowDrops = (
  headerRow: number,
  headerCells: readonly string[],
) => (row: number, cells: readonly string[]) => boolean;

/** What a merge is judged against: where the header is, and which rows below it the mapping drops. */
export interface TableRules {
  isHeader: HeaderTest;
  /** Absent when the mapping drops no rows (`rows.skip`): then every merge below the header refuses. */
  drops?: RowDrops;
}

export function tableRules(mapping: Mapping): TableRules {
  const isHeader = headerTest(mapping.framing);
  if (mapping.rows?.skip === undefined) return { isHeader };
  const drops: RowDrops = (headerRow, headerCells) => {
    const header = indexHeader([...headerCells]);
    const indexOf = (column: string): number => header.get(normaliseColumnName(column)) ?? -1;
    // the key pass's framer: skip after fill-down, an undecided skip test keeps the row
    const framer = new RowFramer(mapping, headerRow, indexOf);
    // frame() never changes a record's cells (fill-down copies them)
    return (row, cells) =>
      framer.frame({ row, cells: cells as string[], raw: '' }, true) === undefined;
  };
  return { isHeader, drops };
}

export class MergedCells {
  private header: number | undefined;
  private dropped: ((row: number, cells: readonly string[]) => boolean) | undefined;
  /** Runs of rows below the header a document reads, as [first, last] pairs (only with `drops`). */
  private readonly kept: number[] = [];

  constructor(
    private readonly isHeader: HeaderTest = twoCells,
    private readonly drops?: RowDrops,
  ) {}

  /** Each row as it is read, in order (rows numbered as the spreadsheet shows them). */
  row(row: number, cells: readonly string[]): void {
    if (this.header === undefined) {
      if (!this.isHeader(row, cells)) return;
      this.header = row;
      this.dropped = this.drops?.(row, cells);
    } else if (this.dropped !== undefined && !this.dropped(row, cells)) {
      const n = this.kept.length;
      if (n > 0 && this.kept[n - 1] === row - 1) this.kept[n - 1] = row;
      else this.kept.push(row, row);
    }
  }

  /** Whether a document reads any row from `first` to `last`. */
  private readsAny(first: number, last: number): boolean {
    for (let i = 0; i < this.kept.length; i += 2)
      if (this.kept[i] <= last && this.kept[i + 1] >= first) return true;
    return false;
  }

  /** A merged range (rows 1-based, inclusive), once every row was read. */
  merge(sheet: string, range: string, firstRow: number, lastRow: number, cells: number): void {
    if (cells <= 1) return;
    const header = this.header;
    if (header !== undefined) {
      if (lastRow < header) return;
      // below the header on rows no document reads: a merged footer the mapping skips
      if (this.dropped !== undefined && firstRow > header && !this.readsAny(firstRow, lastRow))
        return;
    }
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
