/**
 * What a spreadsheet cell's stored value means, through openSource with the shipped sales mapping (one
 * invoice line, 1.000,00 a unit, 19 % VAT):
 * - a formula's saved value only when the program that wrote it computed it. XlsxWriter saves every
 *   formula with the value 0 and openpyxl with an empty one, both asking for a recalculation when the
 *   file is opened (`<calcPr fullCalcOnLoad="1"/>`); read as they are, a VAT rate written =5+14 is an
 *   exempt line (0 %) or an excluded one (blank): 1,000.00 issued for 1,190.00.
 * - a whole number under a zero-padded format (`00000`) with the zeros it shows, as a CSV saved from the
 *   sheet writes it: product 123 shown `00123` is Gtin `00123`.
 */
import { writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { isoDateText, paddedText, zeroPadWidth } from '../../src/read/sheet-values.js';
import { sheetRows, xlsxPackage } from '../helpers/xlsx-package.js';
import type { SheetCell, XlsxParts } from '../helpers/xlsx-package.js';
import { salesSheets } from './read-helpers.js';

const sheets = salesSheets();

const HEADER = [
  'prefijo',
  'numero',
  'fecha',
  'cliente_tipo_doc',
  'cliente_doc',
  'cliente_nombre',
  'codigo',
  'descripcion',
  'cantidad',
  'precio_unitario',
  'iva',
];

// style 1: `00000`; style 2: `#,##0` (no padding)
const STYLES =
  '<numFmts><numFmt numFmtId="164" formatCode="00000"/><numFmt numFmtId="165" formatCode="#,##0"/></numFmts>' +
  '<cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/></cellXfs>';

type Invoice = {
  Lines: { Item: { Gtin?: string }; Quantity: string }[];
  Total: { PayableAmount: string };
};

/** One invoice line (SETP1, 1.000,00 a unit) with the code, quantity and VAT cells given (row 2: G, I, K). */
async function invoice(
  cells: { codigo?: SheetCell; cantidad?: SheetCell; iva: SheetCell },
  parts: Partial<XlsxParts> = {},
): Promise<string> {
  const file = sheets.file(`t${Math.random().toString(36).slice(2)}.xlsx`);
  const row: SheetCell[] = ['SETP', '1', '18/11/2026', '31', '800197268', 'Cliente'];
  row.push(cells.codigo ?? '', 'Silla', cells.cantidad ?? '1', '1.000,00', cells.iva);
  await writeFile(
    file,
    xlsxPackage({ sheets: [['Ventas', sheetRows([HEADER, row])]], styles: STYLES, ...parts }),
  );
  return file;
}

/** The one invoice, or the code and message that refused the file. */
async function read(file: string): Promise<Invoice | string> {
  try {
    const [doc] = await sheets.read(file);
    return doc.problems.length > 0 ? JSON.stringify(doc.problems) : (doc.request as Invoice);
  } catch (err) {
    return `${(err as { code: string }).code}: ${(err as Error).message}`;
  }
}

const payable = async (file: string): Promise<string> => {
  const r = await read(file);
  return typeof r === 'string' ? r : r.Total.PayableAmount;
};

describe('formula values a writer did not compute', () => {
  test('a workbook that asks to recalculate on open (XlsxWriter: 0 saved) is refused naming the cell', async () => {
    // on main: VAT 0.00, issued as an exempt line at 1,000.00
    const refused = await payable(
      await invoice(
        { iva: '<c ><f>5+14</f><v>0</v></c>' },
        { calcPr: 'calcId="124519" fullCalcOnLoad="1"' },
      ),
    );
    expect(refused).toMatch(/^EDOC_READ_UNSUPPORTED: /);
    expect(refused).toContain(
      'cell K2 of sheet "Ventas" holds a formula, and the workbook asks to recalculate its formulas when opened',
    );
  });

  test('a formula saved with an empty value (openpyxl) is refused as one without its value', async () => {
    // on main: the VAT cell read blank, issued as an excluded line at 1,000.00
    const refused = await payable(await invoice({ iva: '<c ><f>5+14</f><v/></c>' }));
    expect(refused).toMatch(/^EDOC_READ_UNSUPPORTED: /);
    expect(refused).toContain(
      'cell K2 of sheet "Ventas" holds a formula without its computed value',
    );
  });

  test('a computed value is read: 19 saved by Excel gives 1,190.00; a text formula saved empty is blank', async () => {
    const excel = { calcPr: 'calcId="191029"' };
    expect(await payable(await invoice({ iva: '<c ><f>5+14</f><v>19</v></c>' }, excel))).toBe(
      '1190.00',
    );
    // =IF(…,"") saved as an empty text: no VAT cell, an excluded line of 1,000.00
    const empty = '<c t="str"><f>IF(1&gt;2,19,"")</f><v></v></c>';
    expect(await payable(await invoice({ iva: empty }))).toBe('1000.00');
  });
});

describe('numbers under a zero-padded format', () => {
  test('the format gives its width; whole numbers are padded to it, others are as stored', () => {
    expect([
      zeroPadWidth('00000'),
      zeroPadWidth('0'),
      zeroPadWidth('#,##0'),
      zeroPadWidth('0.00'),
    ]).toEqual([5, 0, 0, 0]);
    expect(zeroPadWidth('00000;-00000')).toBe(5);
    expect(zeroPadWidth(undefined)).toBe(0);
    expect([
      paddedText(123, 5, ','),
      paddedText(-7, 3, ','),
      paddedText(123456, 5, ','),
      paddedText(12.5, 5, ','),
    ]).toEqual(['00123', '-007', '123456', '12,5']);
  });

  test('a product code 123 shown 00123 is issued as 00123; a quantity under #,##0 is a plain number', async () => {
    // 2 × 1,000.00 = 2,000.00 + 19 % 380.00 = 2,380.00
    const r = await read(await invoice({ codigo: [123, 1], cantidad: [2, 2], iva: '19' }));
    expect(
      typeof r === 'string'
        ? r
        : [r.Lines[0].Item.Gtin, r.Lines[0].Quantity, r.Total.PayableAmount],
    ).toEqual(['00123', '2', '2380.00']);
  });
});

describe('a date stored as ISO 8601 text (t="d")', () => {
  test("reads like a serial date cell: the day in the mapping's pattern, and its time", () => {
    expect(isoDateText('2026-11-18', 'dd/MM/yyyy')).toBe('18/11/2026');
    expect(isoDateText('2026-11-18T00:00:00', 'dd/MM/yyyy')).toBe('18/11/2026');
    expect(isoDateText('2026-11-18T09:15:30.250', 'yyyyMMdd')).toBe('20261118 09:15:30');
    // no calendar day: left as written, and refused by the date rules naming the cell
    expect(isoDateText('2026-02-30', 'dd/MM/yyyy')).toBeUndefined();
    expect(isoDateText('18/11/2026', 'dd/MM/yyyy')).toBeUndefined();
  });

  test('an invoice dated by such a cell is issued on that day, not refused', async () => {
    const file = sheets.file('fecha-iso.xlsx');
    const row: SheetCell[] = ['SETP', '1', '<c t="d"><v>2026-11-18T09:15:00</v></c>', '31'];
    row.push('800197268', 'Cliente', '', 'Silla', '1', '1.000,00', '19');
    await writeFile(file, xlsxPackage({ sheets: [['Ventas', sheetRows([HEADER, row])]] }));
    const r = await read(file);
    const issued = typeof r === 'string' ? r : (r as unknown as { IssueDate: string }).IssueDate;
    expect(issued).toBe('2026-11-18T09:15:00');
    // 1 × 1,000.00 + 19 % = 1,190.00
    expect(await payable(file)).toBe('1190.00');
  });
});
