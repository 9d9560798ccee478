/**
 * Spreadsheets read like CSV: the fixtures in test/fixtures/sheets were written by LibreOffice
 * (make-fixtures.py there) from typed cells — text, numbers, dates, times — as .xlsx and .xls.
 * The expected values are those typed cells, written out by hand below.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import CFB from 'cfb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSource } from '../../src/read/open-source.js';
import { all, COMPANY, edocError, removeDir, tempDir } from './read-helpers.js';

const ROOT = path.join(import.meta.dirname, '..', '..');
const SHEETS = path.join(ROOT, 'test', 'fixtures', 'sheets');
let mapping: Mapping;
let dir: string;

beforeAll(async () => {
  mapping = await loadMapping(path.join(ROOT, 'config', 'mappings', 'sales.csv.yaml'));
  dir = await tempDir();
});
afterAll(async () => {
  await removeDir(dir);
});

interface Invoice {
  SerieNumber: string;
  IssueDate: string;
  DueDate: string;
  CustomerParty: { Identification: { DocumentNumber: string } };
  Lines: {
    Quantity: string;
    UnitPrice: string;
    Item: { Gtin?: string; Description: string };
    TaxSubTotals?: { TaxAmount: string }[];
  }[];
  Total: { PayableAmount: string };
}

const open = (file: string, m: Mapping = mapping) =>
  openSource(file, 'invoice', { company: COMPANY, mapping: m });

describe.each(['ventas.xlsx', 'ventas.xls'])('%s (written by LibreOffice)', (name) => {
  test('numbers, serial dates and times, and text ids with leading zeros read as the values they are', async () => {
    const source = await open(path.join(SHEETS, name));
    const docs = await all(source.documents);
    expect(docs.map((d) => d.problems)).toEqual([[], []]);
    expect(docs.map((d) => d.source.rows)).toEqual([[2, 3], [4]]);
    const [a, b] = docs.map((d) => d.request as Invoice);
    // numero is a numeric cell 990000201; fecha a date cell 2026-11-18, hora a time cell 09:15:00
    expect(a.SerieNumber).toBe('990000201');
    expect(a.IssueDate).toBe('2026-11-18T09:15:00');
    expect(a.DueDate).toBe('2026-12-18T00:00:00'); // vence is a date alone
    // codigo is a text cell '0077020': its zeros stay
    expect(a.Lines.map((l) => l.Item.Gtin)).toEqual(['0077020', '0077021']);
    // cantidad 10 and 4, precio_unitario 12500 and 21900.5 (numeric cells; the mapping reads decimal comma)
    expect(a.Lines.map((l) => [l.Quantity, l.UnitPrice])).toEqual([
      ['10', '12500.00'],
      ['4', '21900.50'],
    ]);
    // 10 x 12,500 = 125,000.00 + 19 % 23,750.00; 4 x 21,900.50 = 87,602.00 + 5 % 4,380.10
    // payable 125,000 + 23,750 + 87,602 + 4,380.10 = 240,732.10
    expect(a.Total.PayableAmount).toBe('240732.10');
    expect(b.CustomerParty.Identification.DocumentNumber).toBe('0012345678');
    expect(b.IssueDate).toBe('2026-11-19T14:02:30');
    // 3 x 3,333.33 = 9,999.99; 19 % = 1,899.9981 -> 1,900.00; payable 11,899.99
    expect(b.Total.PayableAmount).toBe('11899.99');
    expect(source.format).toBe(name.endsWith('.xls') ? 'xls' : 'xlsx');
  });

  test('each row of the retry text is the row as CSV with the same columns', async () => {
    const source = await open(path.join(SHEETS, name));
    const docs = await all(source.documents);
    expect(source.header?.startsWith('prefijo;numero;fecha;hora;vence;')).toBe(true);
    // the description holds the delimiter: quoted; the price in the mapping's decimal comma
    expect(docs[0].raw.split('\r\n')[1]).toBe(
      'SETP;990000201;18/11/2026;09:15:00;18/12/2026;31;800197268;Distribuidora Andina S.A.S.;compras@andina.example;1;42;2;2;' +
        '0077021;"Arroz blanco 5 kg; bulto x 4";4;94;21900,5;5',
    );
  });

  test('the sheet named in the mapping, with its rows numbered as the spreadsheet shows them', async () => {
    const named = { ...mapping, format: { ...mapping.format, sheet: 'segunda' } };
    const docs = await all((await open(path.join(SHEETS, name), named)).documents);
    // the header is on row 3 of that sheet (rows 1 and 2 are empty): its lines are rows 4 and 5
    expect(docs.map((d) => d.source.rows)).toEqual([[4, 5]]);
    const doc = docs[0].request as Invoice;
    // 2 x 18,000 = 36,000 + 19 % 6,840; 5 x 6,200 = 31,000 at 0 %: payable 73,840.00
    expect(doc.Total.PayableAmount).toBe('73840.00');
    expect(doc.Lines.map((l) => l.Item.Description)).toEqual([
      'Resma carta 75 g',
      'Lápiz negro N.º 2 (caja x 12)',
    ]);
  });

  test('a sheet name the workbook does not have is a file-level error listing its sheets', async () => {
    const named = { ...mapping, format: { ...mapping.format, sheet: 'Ventas' } };
    const err = await edocError(open(path.join(SHEETS, name), named), 'EDOC_READ_SHEET_MISSING');
    expect(err.message).toContain('no sheet named "Ventas" (sheets: "Facturas", "Segunda")');
  });
});

describe('spreadsheets that cannot be read', () => {
  test('a password-protected .xlsx (an encrypted package in a compound file) is refused as such', async () => {
    // the container Excel writes for "Encrypt with password": EncryptionInfo + EncryptedPackage streams
    const cfb = CFB.utils.cfb_new();
    CFB.utils.cfb_add(cfb, 'EncryptionInfo', Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]));
    CFB.utils.cfb_add(cfb, 'EncryptedPackage', Buffer.alloc(4096, 0x5a));
    const file = path.join(dir, 'protegido.xlsx');
    await writeFile(file, CFB.write(cfb, { type: 'buffer' }) as Buffer);
    const err = await edocError(open(file), 'EDOC_READ_SHEET_ENCRYPTED');
    expect(err.message).toBe(
      'protegido.xlsx cannot be read: it is protected with a password (an encrypted workbook); export it again without a password',
    );
  });

  test('a password-protected .xls (a FilePass record after the workbook BOF) is refused as such', async () => {
    const cfb = CFB.read(await readFile(path.join(SHEETS, 'ventas.xls')), { type: 'buffer' });
    const entry = CFB.find(cfb, 'Workbook');
    if (entry === null) throw new Error('fixture has no Workbook stream');
    const stream = Buffer.from(entry.content as Uint8Array);
    const bofLength = 4 + stream.readUInt16LE(2);
    // FilePass: type 0x002F, RC4 (wEncryptionType 1) with 52 bytes of header, as Excel 97 writes it
    const filePass = Buffer.alloc(4 + 54);
    filePass.writeUInt16LE(0x002f, 0);
    filePass.writeUInt16LE(54, 2);
    filePass.writeUInt16LE(1, 4);
    entry.content = Buffer.concat([
      stream.subarray(0, bofLength),
      filePass,
      stream.subarray(bofLength),
    ]);
    const file = path.join(dir, 'protegido.xls');
    await writeFile(file, CFB.write(cfb, { type: 'buffer' }) as Buffer);
    const err = await edocError(open(file), 'EDOC_READ_SHEET_ENCRYPTED');
    expect(err.message).toContain('protegido.xls cannot be read: it is protected with a password');
  });

  test('a truncated .xlsx is a corrupt spreadsheet, not a crash', async () => {
    const err = await edocError(
      open(path.join(SHEETS, 'ventas-dañado.xlsx')),
      'EDOC_READ_SHEET_CORRUPT',
    );
    expect(err.message).toMatch(/^ventas-dañado\.xlsx cannot be read as a spreadsheet: /);
  });

  test('random bytes under an .xls name are a corrupt spreadsheet', async () => {
    const file = path.join(dir, 'basura.xls');
    await writeFile(
      file,
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 1, 2, 3, 0, 0, 9]),
    );
    await edocError(open(file), 'EDOC_READ_SHEET_CORRUPT');
  });

  test('a web page saved as .xls is refused with what to do; a .xlsb names the format', async () => {
    const html = path.join(dir, 'reporte.xls');
    await writeFile(html, '<html><body><table><tr><td>prefijo</td></tr></table></body></html>');
    expect((await edocError(open(html), 'EDOC_READ_UNSUPPORTED')).message).toContain(
      'web page (HTML)',
    );
    const xlsb = path.join(dir, 'ventas.xlsb');
    await copyFile(path.join(SHEETS, 'ventas.xlsx'), xlsb);
    expect((await edocError(open(xlsb), 'EDOC_READ_UNSUPPORTED')).message).toContain(
      'binary .xlsb workbook',
    );
  });

  test('a spreadsheet in the inbox of a kind without a mapping is unsupported, naming the kind', async () => {
    const err = await edocError(
      openSource(path.join(SHEETS, 'ventas.xlsx'), 'invoice', { company: COMPANY }),
      'EDOC_READ_UNSUPPORTED',
    );
    expect(err.message).toBe(
      'ventas.xlsx: no mapping is configured for kind invoice, so spreadsheets cannot be read',
    );
  });

  test('a workbook whose only sheet is not a worksheet has nothing to read', async () => {
    // a copy of ventas.xlsx whose sheets are declared as chart sheets in the workbook's relationships
    const err = await edocError(
      open(path.join(SHEETS, 'solo-graficos.xlsx')),
      'EDOC_READ_SHEET_MISSING',
    );
    expect(err.message).toContain(
      'it has no worksheet, only macro or chart sheets ("Facturas", "Segunda")',
    );
  });

  test("a cell reference beyond Excel's last column is a damaged sheet, never millions of empty cells", async () => {
    // met at open or while the documents stream, depending on where the parser's chunks end
    const read = async (): Promise<unknown> =>
      all((await open(path.join(SHEETS, 'columna-lejana.xlsx'))).documents);
    const err = await edocError(read(), 'EDOC_READ_SHEET_CORRUPT');
    expect(err.message).toContain('a cell reference "ZZZZ2" lies beyond Excel\'s last column');
  });

  test('a row longer than read.maxRecordBytes is refused while it is read', async () => {
    const source = openSource(path.join(SHEETS, 'ventas.xlsx'), 'invoice', {
      company: COMPANY,
      mapping,
      maxRecordBytes: 150,
    });
    // the header row is already past the cap: 19 names of 176 characters, 18 delimiters and CRLF = 196 bytes
    const err = await edocError(source, 'EDOC_READ_RECORD_TOO_LARGE');
    expect(err.message).toMatch(
      /ventas\.xlsx: row 1 is longer than 150 bytes \(read\.maxRecordBytes\); the file is not read$/,
    );
  });

  test('a tab-separated text file named .xls (an ERP\'s "export to Excel") is read as delimited text', async () => {
    const file = path.join(dir, 'texto.xls');
    const csv = await readFile(path.join(ROOT, 'examples', 'invoices.csv'), 'latin1');
    await writeFile(file, csv.replace(/;/g, '\t'), 'latin1');
    const docs = await all((await open(file)).documents);
    expect(docs.map((d) => d.problems.length)).toEqual([0, 0, 0]);
  });
});
