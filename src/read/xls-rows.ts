/**
 * Rows of one worksheet of an Excel 97-2003 workbook (.xls, BIFF8), read from
 * its compound-file container (the `cfb` package) by this small record reader
 * ([MS-XLS] 2.4; the record layer is read/xls-records.ts). An .xls sheet has at
 * most 65,536 rows and the container is read whole, so memory is bounded by the
 * file's size. Read: the sheet list (BoundSheet8), the date system (Date1904),
 * cell formats (Format, XF), the shared strings (SST with its Continue records),
 * and the cells LabelSst, Label, Number, RK, MulRk, BoolErr and Formula (its
 * cached result, String for text). An encrypted workbook (FilePass) and a pre-97
 * one (BIFF5 `Book` stream) are refused.
 */
import CFB from 'cfb';
import {
  isDateFormat,
  isPercentFormat,
  numberText,
  lookedText,
  percentText,
  serialDateText,
  showsTimeOfDay,
  numberLook,
} from './sheet-values.js';
import type { NumberLook, SheetFormat } from './sheet-values.js';
import type { SheetRow } from './xlsx-rows.js';
import { MergedCells, type TableRules } from './sheet-merges.js';
import { SheetFault } from './zip-parts.js';
import {
  BOF,
  EOF,
  FILEPASS,
  BOUNDSHEET,
  DATEMODE,
  FORMAT,
  XF,
  SST,
  LABELSST,
  LABEL,
  NUMBER,
  RK,
  MULRK,
  BOOLERR,
  FORMULA,
  STRING,
  RECALCID,
  UNCALCED,
  records,
  Cursor,
  rkValue,
  BOOL_ERRORS,
} from './xls-records.js';

const MERGEDCELLS = 0x00e5;

interface Globals {
  sheets: { name: string; offset: number; kind: number; hidden: boolean }[];
  date1904: boolean;
  dateXfs: Set<number>;
  /** Date formats showing a time of day too: midnight is `00:00:00`, not a bare day. */
  clockXfs: Set<number>;
  /** Formats showing a percentage: the cell reaches the mapping as shown (`19%`). */
  percentXfs: Set<number>;
  /** Formats padding whole numbers with zeros (`00000`), or showing a currency other than the peso. */
  lookXfs: Map<number, NumberLook>;
  /**
   * A calculation engine computed the formulas' saved values (a RecalcId record with its build). xlwt
   * writes none, and saves every formula's value as an empty text: read so, a VAT rate or a discount
   * computed by a formula would be blank.
   */
  computed: boolean;
  strings: string[];
}

function readGlobals(stream: Buffer): Globals {
  const g: Globals = {
    sheets: [],
    date1904: false,
    dateXfs: new Set(),
    clockXfs: new Set(),
    percentXfs: new Set(),
    lookXfs: new Map(),
    computed: false,
    strings: [],
  };
  const codes = new Map<number, string>();
  const xfFormats: number[] = [];
  let first = true;
  for (const r of records(stream, 0)) {
    if (first) {
      if (r.type !== BOF || r.data.length < 4 || r.data.readUInt16LE(0) !== 0x0600) {
        throw new SheetFault(
          'unsupported',
          'it is not an Excel 97-2003 (BIFF8) workbook; save it as .xlsx or CSV',
        );
      }
      first = false;
      continue;
    }
    switch (r.type) {
      case FILEPASS:
        throw new SheetFault('encrypted', 'it is protected with a password');
      case DATEMODE:
        g.date1904 = r.data.readUInt16LE(0) === 1;
        break;
      case RECALCID:
        g.computed = r.data.length >= 8 && r.data.readUInt32LE(4) > 0;
        break;
      case BOUNDSHEET: {
        const c = new Cursor([r.data.subarray(6)]);
        g.sheets.push({
          offset: r.data.readUInt32LE(0),
          kind: r.data[5],
          // hsState: 0 visible, 1 hidden, 2 very hidden
          hidden: (r.data[4] & 0x03) !== 0,
          name: c.unicodeString(1),
        });
        break;
      }
      case FORMAT:
        codes.set(r.data.readUInt16LE(0), new Cursor([r.data.subarray(2)]).unicodeString(2));
        break;
      case XF:
        xfFormats.push(r.data.readUInt16LE(2));
        break;
      case SST: {
        const c = new Cursor([r.data, ...r.continues]);
        c.skip(4);
        const unique = c.u32();
        for (let i = 0; i < unique; i++) g.strings.push(c.unicodeString(2));
        break;
      }
      default:
        break;
    }
  }
  xfFormats.forEach((id, i) => {
    if (showsTimeOfDay(id, codes.get(id))) g.clockXfs.add(i);
    if (isDateFormat(id, codes.get(id))) g.dateXfs.add(i);
    else if (isPercentFormat(id, codes.get(id))) g.percentXfs.add(i);
    else if (numberLook(codes.get(id)) !== undefined) g.lookXfs.set(i, numberLook(codes.get(id))!);
  });
  return g;
}

function workbookStream(buffer: Buffer): Buffer {
  let container: CFB.CFB$Container;
  try {
    container = CFB.read(buffer, { type: 'buffer' });
  } catch (err) {
    throw new SheetFault(
      'corrupt',
      `its compound-file container cannot be read (${(err as Error).message})`,
    );
  }
  const entry = (name: string): CFB.CFB$Entry | null => CFB.find(container, name);
  if (entry('EncryptedPackage') !== null || entry('EncryptionInfo') !== null) {
    throw new SheetFault('encrypted', 'it is protected with a password (an encrypted workbook)');
  }
  const wb = entry('Workbook');
  if (wb === null) {
    if (entry('Book') !== null)
      throw new SheetFault('unsupported', 'it is an Excel 5/95 workbook; save it as .xlsx or CSV');
    throw new SheetFault(
      'corrupt',
      'it holds no workbook (is it a Word or other Office document?)',
    );
  }
  const content = wb.content as Buffer | Uint8Array | undefined;
  if (content === undefined || content.length === 0)
    throw new SheetFault('corrupt', 'its workbook stream is empty');
  return Buffer.isBuffer(content) ? content : Buffer.from(content);
}

/** Reads the whole workbook: .xls files are small (65,536 rows at most). */
export function readXlsSheet(
  bytes: Buffer,
  wanted: string | undefined,
  format: SheetFormat,
  rules?: TableRules,
): { name: string; rows: SheetRow[] } {
  const stream = workbookStream(bytes);
  const g = readGlobals(stream);
  const worksheets = g.sheets.filter((s) => s.kind === 0);
  const names = g.sheets.map((s) => `"${s.name}"`).join(', ');
  let sheet;
  if (wanted !== undefined) {
    sheet = g.sheets.find((s) => s.name.trim().toLowerCase() === wanted.trim().toLowerCase());
    if (sheet === undefined)
      throw new SheetFault('sheet', `it has no sheet named "${wanted}" (sheets: ${names})`);
    if (sheet.kind !== 0)
      throw new SheetFault(
        'sheet',
        `its sheet "${wanted}" is not a worksheet (a chart or macro sheet)`,
      );
  } else {
    // the first sheet a person sees (as for .xlsx): a hidden one is not the export
    sheet = worksheets.find((s) => !s.hidden) ?? worksheets[0];
    if (sheet === undefined)
      throw new SheetFault(
        'sheet',
        `it has no worksheet, only macro or chart sheets (${names || 'none'})`,
      );
  }
  const byRow = new Map<number, string[]>();
  /** The cells written from a number, by row (SheetRow.typed). */
  const typedAt = new Map<number, Set<number>>();
  const put = (row: number, col: number, text: string, typed = false): void => {
    let cells = byRow.get(row);
    if (cells === undefined) {
      cells = [];
      byRow.set(row, cells);
    }
    while (cells.length < col) cells.push('');
    cells[col] = text;
    if (typed) typedAt.set(row, (typedAt.get(row) ?? new Set()).add(col));
    else typedAt.get(row)?.delete(col);
  };
  const num = (xf: number, n: number): string => {
    const date = g.dateXfs.has(xf)
      ? serialDateText(n, g.date1904, format.date, g.clockXfs.has(xf))
      : undefined;
    if (date !== undefined) return date;
    if (g.percentXfs.has(xf)) return percentText(n, format.decimal);
    const look = g.lookXfs.get(xf);
    return look === undefined ? numberText(n, format.decimal) : lookedText(n, look, format.decimal);
  };
  let formulaCell: { row: number; col: number } | undefined;
  let uncalced = false;
  /** MergedCells' ranges (Ref8: rwFirst, rwLast, colFirst, colLast), checked once every row is known. */
  const merges: { r1: number; r2: number; c1: number; c2: number }[] = [];
  let first = true;
  for (const r of records(stream, sheet.offset)) {
    if (first) {
      if (r.type !== BOF)
        throw new SheetFault(
          'corrupt',
          `sheet "${sheet.name}" does not start where the workbook says`,
        );
      first = false;
      continue;
    }
    const d = r.data;
    if (r.type === UNCALCED) uncalced = true;
    if (r.type === MERGEDCELLS && d.length >= 2) {
      const count = Math.min(d.readUInt16LE(0), Math.floor((d.length - 2) / 8));
      for (let i = 0; i < count; i++) {
        const at = 2 + i * 8;
        merges.push({
          r1: d.readUInt16LE(at),
          r2: d.readUInt16LE(at + 2),
          c1: d.readUInt16LE(at + 4),
          c2: d.readUInt16LE(at + 6),
        });
      }
      continue;
    }
    if (d.length < 6 && r.type !== STRING && r.type !== EOF) continue;
    switch (r.type) {
      case LABELSST:
        put(d.readUInt16LE(0), d.readUInt16LE(2), g.strings[d.readUInt32LE(6)] ?? '');
        break;
      case LABEL:
        put(
          d.readUInt16LE(0),
          d.readUInt16LE(2),
          new Cursor([d.subarray(6), ...r.continues]).unicodeString(2),
        );
        break;
      case NUMBER:
        put(d.readUInt16LE(0), d.readUInt16LE(2), num(d.readUInt16LE(4), d.readDoubleLE(6)), true);
        break;
      case RK:
        put(
          d.readUInt16LE(0),
          d.readUInt16LE(2),
          num(d.readUInt16LE(4), rkValue(d.readUInt32LE(6))),
          true,
        );
        break;
      case MULRK: {
        const row = d.readUInt16LE(0);
        const firstCol = d.readUInt16LE(2);
        const count = (d.length - 6) / 6;
        for (let i = 0; i < count; i++)
          put(
            row,
            firstCol + i,
            num(d.readUInt16LE(4 + i * 6), rkValue(d.readUInt32LE(6 + i * 6))),
            true,
          );
        break;
      }
      case BOOLERR:
        put(
          d.readUInt16LE(0),
          d.readUInt16LE(2),
          d[7] === 1 ? (BOOL_ERRORS[d[6]] ?? '#ERROR') : d[6] === 1 ? 'TRUE' : 'FALSE',
        );
        break;
      case FORMULA: {
        const row = d.readUInt16LE(0);
        const col = d.readUInt16LE(2);
        if (!g.computed || uncalced) throw uncomputed(sheet.name, row, col);
        if (d.readUInt16LE(12) !== 0xffff) {
          put(row, col, num(d.readUInt16LE(4), d.readDoubleLE(6)), true);
          break;
        }
        const kind = d[6];
        if (kind === 0)
          formulaCell = { row, col }; // the text follows in a String record
        else if (kind === 1) put(row, col, d[8] === 1 ? 'TRUE' : 'FALSE');
        else if (kind === 2) put(row, col, BOOL_ERRORS[d[8]] ?? '#ERROR');
        break;
      }
      case STRING:
        if (formulaCell !== undefined)
          put(formulaCell.row, formulaCell.col, new Cursor([d, ...r.continues]).unicodeString(2));
        formulaCell = undefined;
        break;
      default:
        break;
    }
  }
  const rows = [...byRow.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([row, cells]): SheetRow => ({ row: row + 1, cells, typed: typedAt.get(row) }));
  const merged = new MergedCells(rules?.isHeader, rules?.drops);
  for (const r of rows) merged.row(r.row, r.cells);
  for (const m of merges) {
    const range = `${columnName(m.c1)}${m.r1 + 1}:${columnName(m.c2)}${m.r2 + 1}`;
    merged.merge(sheet.name, range, m.r1 + 1, m.r2 + 1, (m.r2 - m.r1 + 1) * (m.c2 - m.c1 + 1));
  }
  return { name: sheet.name, rows };
}

/** A formula whose saved value no calculation engine computed refuses the file, naming the cell. */
function uncomputed(sheet: string, row: number, col: number): SheetFault {
  return new SheetFault(
    'unsupported',
    `cell ${columnName(col)}${row + 1} of sheet "${sheet}" holds a formula whose value was never computed (the program that wrote the file does not compute formulas); open the file in Excel or LibreOffice and save it again, or export CSV`,
  );
}

/** 0 -> A, 27 -> AB. */
function columnName(col: number): string {
  let name = '';
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}
