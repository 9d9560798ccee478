/**
 * The parts of an .xlsx / .xlsm package read whole before a sheet is streamed (read/xlsx-rows.ts):
 * the relationships, the sheet list (which sheet, and the 1904 date system), the shared-strings table
 * (kept as one string plus offsets: about one byte per character for Latin text) and the cell formats
 * that mark dates. Each part is size-capped.
 */
import { SaxesParser } from 'saxes';
import type { SaxesTagPlain } from 'saxes';
import { isDateFormat, isPercentFormat, numberLook, showsTimeOfDay } from './sheet-values.js';
import type { NumberLook } from './sheet-values.js';
import { openZip, SheetFault } from './zip-parts.js';
import type { ZipPackage } from './zip-parts.js';

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

export function attr(tag: SaxesTagPlain, name: string): string | undefined {
  const v = (tag.attributes as Record<string, string>)[name];
  return typeof v === 'string' ? v : undefined;
}

/** OOXML escapes characters XML cannot carry as `_xHHHH_`. */
export function unescapeOoxml(s: string): string {
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
export class SharedStrings {
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
  /** Date styles whose format shows a time of day too (`dd/mm/yyyy hh:mm`). */
  clockStyles: Set<number>;
  percentStyles: Set<number>;
  /** Styles whose number format pads whole numbers with zeros (`00000`) or shows another currency. */
  lookStyles: Map<number, NumberLook>;
}

async function styles(zip: ZipPackage, part: string | undefined): Promise<Styles> {
  const dateStyles = new Set<number>();
  const clockStyles = new Set<number>();
  const percentStyles = new Set<number>();
  const lookStyles = new Map<number, NumberLook>();
  const found = { dateStyles, clockStyles, percentStyles, lookStyles };
  if (part === undefined || !zip.has(part)) return found;
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
    if (showsTimeOfDay(id, codes.get(id))) clockStyles.add(i);
    if (isDateFormat(id, codes.get(id))) dateStyles.add(i);
    else if (isPercentFormat(id, codes.get(id))) percentStyles.add(i);
    else {
      const look = numberLook(codes.get(id));
      if (look !== undefined) lookStyles.set(i, look);
    }
  });
  return found;
}

const WORKSHEET = /\/worksheet$/;

/** The sheet `wanted` (name, case-insensitive) or the first visible worksheet in tab order. */
async function findSheet(zip: ZipPackage, wanted: string | undefined): Promise<FoundSheet> {
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
  let uncomputed = false;
  parseXml(await zip.text(workbook, SMALL_PART), workbook, {
    open: (t) => {
      if (t.name === 'workbookPr') date1904 = ['1', 'true'].includes(attr(t, 'date1904') ?? '');
      else if (t.name === 'calcPr')
        uncomputed = ['1', 'true'].includes(attr(t, 'fullCalcOnLoad') ?? '');
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
  return { workbook, sheet: target, name: chosen.name, date1904, uncomputed };
}

/** The sheet to read and what its workbook says of every sheet. */
export interface FoundSheet {
  workbook: string;
  sheet: string;
  name: string;
  date1904: boolean;
  /**
   * The workbook asks to recalculate every formula when it is opened (`calcPr fullCalcOnLoad`): what
   * programs that write formulas without computing them set (XlsxWriter, openpyxl), saving 0 or
   * nothing as each formula's value. A formula's saved value is then not its result.
   */
  uncomputed: boolean;
}

/** What a sheet's rows are read with: which sheet, its workbook's strings and date formats. */
export interface XlsxWorkbook {
  found: FoundSheet;
  strings: SharedStrings;
  dateStyles: Set<number>;
  /** Date styles whose format shows a time of day too: midnight is `00:00:00`, not a bare day. */
  clockStyles: Set<number>;
  /** Styles whose number format shows a percentage (`0.19` shown `19%`). */
  percentStyles: Set<number>;
  /** Styles whose number format pads whole numbers with zeros, or shows a currency other than the peso. */
  lookStyles: Map<number, NumberLook>;
}

/** Reads the package's sheet list, shared strings and cell formats, then closes it. */
export async function readWorkbook(
  file: string,
  wanted: string | undefined,
): Promise<XlsxWorkbook> {
  const meta = await openZip(file);
  try {
    const found = await findSheet(meta, wanted);
    const rels = await relsOf(meta, found.workbook);
    const partOf = (kind: string): string | undefined =>
      [...rels.values()].find((r) => r.type.endsWith(`/${kind}`))?.target;
    const strings = await sharedStrings(meta, partOf('sharedStrings'));
    return { found, strings, ...(await styles(meta, partOf('styles'))) };
  } finally {
    meta.close();
  }
}
