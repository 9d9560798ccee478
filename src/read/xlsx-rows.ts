/**
 * Rows of one worksheet of an .xlsx / .xlsm package, streamed: the sheet's XML
 * is inflated and parsed (saxes) chunk by chunk, so memory holds the parser's
 * buffer and the rows of one chunk, whatever the number of rows. What is held
 * whole: the shared-strings table (every distinct text of the workbook, kept as
 * one string plus offsets: about one byte per character for Latin text), the
 * cell formats, the sheet list. Macros (.xlsm's vbaProject.bin) are never read.
 */
import { SaxesParser } from 'saxes';
import type { SaxesTagPlain } from 'saxes';
import { isDateFormat, numberText, serialDateText } from './sheet-values.js';
import type { SheetFormat } from './sheet-values.js';
import { MergedCells, parseRange } from './sheet-merges.js';
import { openZip, SheetFault } from './zip-parts.js';
import type { ZipPackage } from './zip-parts.js';

export interface SheetRow {
  /** The row number the spreadsheet shows (1-based). */
  row: number;
  cells: string[];
}

const SMALL_PART = 16 * 1024 * 1024;
const STRINGS_PART = 512 * 1024 * 1024;

/** Parses a whole small part, calling `open` / `close` per element and `text` per text node. */
function parseXml(
  xml: string,
  part: string,
  on: {
    open?: (tag: SaxesTagPlain) => void;
    close?: (name: string) => void;
    text?: (t: string) => void;
  },
): void {
  const parser = new SaxesParser();
  parser.on('error', (err) => {
    throw new SheetFault('corrupt', `its part ${part} is not well-formed XML (${err.message})`);
  });
  if (on.open) parser.on('opentag', on.open);
  if (on.close) {
    const close = on.close;
    parser.on('closetag', (t) => close(t.name));
  }
  if (on.text) parser.on('text', on.text);
  parser.write(xml).close();
}

function attr(tag: SaxesTagPlain, name: string): string | undefined {
  const v = (tag.attributes as Record<string, string>)[name];
  return typeof v === 'string' ? v : undefined;
}

/** OOXML escapes characters XML cannot carry as `_xHHHH_`. */
function unescapeOoxml(s: string): string {
  return s.includes('_x')
    ? s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    : s;
}

function resolveTarget(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = base.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}

function relsOf(
  zip: ZipPackage,
  part: string,
): Promise<Map<string, { type: string; target: string }>> {
  const relsPart = resolveTarget(part, `_rels/${part.split('/').pop() ?? ''}.rels`);
  const rels = new Map<string, { type: string; target: string }>();
  if (!zip.has(relsPart)) return Promise.resolve(rels);
  return zip.text(relsPart, SMALL_PART).then((xml) => {
    parseXml(xml, relsPart, {
      open: (t) => {
        if (t.name !== 'Relationship') return;
        const id = attr(t, 'Id');
        const target = attr(t, 'Target');
        if (id !== undefined && target !== undefined && attr(t, 'TargetMode') !== 'External') {
          rels.set(id, { type: attr(t, 'Type') ?? '', target: resolveTarget(part, target) });
        }
      },
    });
    return rels;
  });
}

/** Distinct texts as one string and the offset of each (a string per entry costs ~20 bytes more each). */
class SharedStrings {
  private parts: string[] = [];
  private offsets: number[] = [0];
  private total = 0;
  private joined = '';

  add(s: string): void {
    this.parts.push(s);
    this.total += s.length;
    this.offsets.push(this.total);
    if (this.parts.length >= 4096) this.flush();
  }

  flush(): void {
    this.joined += this.parts.join('');
    this.parts = [];
  }

  get(i: number): string | undefined {
    return i >= 0 && i + 1 < this.offsets.length
      ? this.joined.slice(this.offsets[i], this.offsets[i + 1])
      : undefined;
  }
}

async function sharedStrings(zip: ZipPackage, part: string | undefined): Promise<SharedStrings> {
  const table = new SharedStrings();
  if (part === undefined || !zip.has(part)) return table;
  const parser = new SaxesParser();
  let inSi = false;
  let inT = 0;
  let phonetic = 0;
  let text = '';
  parser.on('error', (err) => {
    throw new SheetFault('corrupt', `its shared strings are not well-formed XML (${err.message})`);
  });
  parser.on('opentag', (t) => {
    if (t.name === 'si') {
      inSi = true;
      text = '';
    } else if (t.name === 'rPh') phonetic++;
    else if (t.name === 't' && inSi && phonetic === 0) inT++;
  });
  parser.on('closetag', (t) => {
    if (t.name === 'si') {
      table.add(unescapeOoxml(text));
      inSi = false;
    } else if (t.name === 'rPh') phonetic--;
    else if (t.name === 't' && inT > 0) inT--;
  });
  parser.on('text', (t) => {
    if (inT > 0) text += t;
  });
  const stream = await zip.stream(part);
  stream.setEncoding('utf8');
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<string>) {
    bytes += chunk.length;
    if (bytes > STRINGS_PART)
      throw new SheetFault(
        'corrupt',
        `its shared strings are larger than ${STRINGS_PART} characters`,
      );
    parser.write(chunk);
  }
  parser.close();
  table.flush();
  return table;
}

interface Styles {
  dateStyles: Set<number>;
}

async function styles(zip: ZipPackage, part: string | undefined): Promise<Styles> {
  const dateStyles = new Set<number>();
  if (part === undefined || !zip.has(part)) return { dateStyles };
  const codes = new Map<number, string>();
  const xfFormats: number[] = [];
  let inCellXfs = false;
  parseXml(await zip.text(part, SMALL_PART), part, {
    open: (t) => {
      if (t.name === 'numFmt') codes.set(Number(attr(t, 'numFmtId')), attr(t, 'formatCode') ?? '');
      else if (t.name === 'cellXfs') inCellXfs = true;
      else if (t.name === 'xf' && inCellXfs) xfFormats.push(Number(attr(t, 'numFmtId') ?? 0));
    },
    close: (name) => {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  xfFormats.forEach((id, i) => {
    if (isDateFormat(id, codes.get(id))) dateStyles.add(i);
  });
  return { dateStyles };
}

const WORKSHEET = /\/worksheet$/;

/** The sheet `wanted` (name, case-insensitive) or the first visible worksheet in tab order. */
async function findSheet(
  zip: ZipPackage,
  wanted: string | undefined,
): Promise<{ workbook: string; sheet: string; name: string; date1904: boolean }> {
  if (zip.has('xl/workbook.bin'))
    throw new SheetFault(
      'unsupported',
      'it is a binary workbook (.xlsb); save it as .xlsx (Excel Workbook) or CSV',
    );
  const root = await relsOf(zip, '');
  const workbook =
    [...root.values()].find((r) => r.type.endsWith('/officeDocument'))?.target ?? 'xl/workbook.xml';
  if (!zip.has(workbook))
    throw new SheetFault('corrupt', 'the package has no workbook part (is it a spreadsheet?)');
  const sheets: { name: string; rid: string; hidden: boolean }[] = [];
  let date1904 = false;
  parseXml(await zip.text(workbook, SMALL_PART), workbook, {
    open: (t) => {
      if (t.name === 'workbookPr') date1904 = ['1', 'true'].includes(attr(t, 'date1904') ?? '');
      else if (t.name === 'sheet')
        sheets.push({
          name: attr(t, 'name') ?? '',
          rid: attr(t, 'r:id') ?? '',
          hidden: ['hidden', 'veryHidden'].includes(attr(t, 'state') ?? ''),
        });
    },
  });
  const rels = await relsOf(zip, workbook);
  const isWorksheet = (s: { rid: string }): boolean => WORKSHEET.test(rels.get(s.rid)?.type ?? '');
  const names = sheets.map((s) => `"${s.name}"`).join(', ');
  let chosen: { name: string; rid: string } | undefined;
  if (wanted !== undefined) {
    chosen = sheets.find((s) => s.name.trim().toLowerCase() === wanted.trim().toLowerCase());
    if (chosen === undefined)
      throw new SheetFault('sheet', `it has no sheet named "${wanted}" (sheets: ${names})`);
    if (!isWorksheet(chosen))
      throw new SheetFault(
        'sheet',
        `its sheet "${wanted}" is not a worksheet (a chart or macro sheet)`,
      );
  } else {
    // the first sheet a person sees: a hidden one (a parameters sheet, an old copy) is not the export
    chosen = sheets.find((s) => isWorksheet(s) && !s.hidden) ?? sheets.find(isWorksheet);
    if (chosen === undefined)
      throw new SheetFault(
        'sheet',
        `it has no worksheet, only macro or chart sheets (${names || 'none'})`,
      );
  }
  const target = rels.get(chosen.rid)?.target;
  if (target === undefined || !zip.has(target))
    throw new SheetFault('corrupt', `the part of sheet "${chosen.name}" is missing`);
  return { workbook, sheet: target, name: chosen.name, date1904 };
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
): Promise<XlsxSheet> {
  const meta = await openZip(file);
  let found: Awaited<ReturnType<typeof findSheet>>;
  let strings: SharedStrings;
  let dateStyles: Set<number>;
  try {
    found = await findSheet(meta, wanted);
    const rels = await relsOf(meta, found.workbook);
    const partOf = (kind: string): string | undefined =>
      [...rels.values()].find((r) => r.type.endsWith(`/${kind}`))?.target;
    strings = await sharedStrings(meta, partOf('sharedStrings'));
    ({ dateStyles } = await styles(meta, partOf('styles')));
  } finally {
    meta.close();
  }
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
        return v;
      default: {
        if (v.trim() === '') return '';
        const n = Number(v);
        if (dateStyles.has(style))
          return serialDateText(n, found.date1904, format.date) ?? numberText(n, format.decimal);
        return numberText(n, format.decimal);
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
    const merged = new MergedCells();
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
        if (cell.formula && !cell.valued && cell.type !== 'inlineStr') {
          // read as blank it would be a discount or a tax silently left out
          throw new SheetFault(
            'unsupported',
            `cell ${cell.ref ?? `${cell.col + 1} of row ${current.row}`} of sheet "${found.name}" holds a formula ` +
              'without its computed value (the program that wrote the file does not compute formulas); open the file in Excel or LibreOffice and save it again, or export CSV',
          );
        }
        const cells = current.cells;
        while (cells.length < cell.col) cells.push('');
        cells[cell.col] = cellText(cell.type, cell.style, cell.v, cell.inline);
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
