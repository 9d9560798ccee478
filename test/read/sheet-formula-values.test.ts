/**
 * A formula's saved value is what the sheet means only when the program that wrote it computed it.
 * XlsxWriter saves every formula with the value 0 and openpyxl with an empty one, both asking for a
 * recalculation when the file is opened (`<calcPr fullCalcOnLoad="1"/>`); read as they are, a VAT rate
 * written =5+14 is an exempt line (0 %) or an excluded one (blank). Through openSource with the shipped
 * sales mapping: 1 × 1.000,00 at 19 % is 1,190.00, never 1,000.00.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSource } from '../../src/read/open-source.js';
import { sheetRows, xlsxPackage } from '../helpers/xlsx-package.js';
import { all, COMPANY, removeDir, tempDir } from './read-helpers.js';

const ROOT = path.join(import.meta.dirname, '..', '..');
let mapping: Mapping;
let dir: string;
beforeAll(async () => {
  mapping = await loadMapping(path.join(ROOT, 'config', 'mappings', 'sales.csv.yaml'));
  dir = await tempDir();
});
afterAll(async () => {
  await removeDir(dir);
});

const HEADER = [
  'prefijo',
  'numero',
  'fecha',
  'cliente_tipo_doc',
  'cliente_doc',
  'cliente_nombre',
  'descripcion',
  'cantidad',
  'precio_unitario',
  'iva',
];

/** One invoice line, 1 × 1.000,00, its VAT cell (column J) given as `<c>` XML. */
async function invoice(vat: string, calcPr?: string): Promise<string> {
  const file = path.join(dir, `t${Math.random().toString(36).slice(2)}.xlsx`);
  const row = ['SETP', '1', '18/11/2026', '31', '800197268', 'Cliente', 'Silla', '1', '1.000,00'];
  await writeFile(
    file,
    xlsxPackage({ sheets: [['Ventas', sheetRows([HEADER, [...row, vat]])]], calcPr }),
  );
  return file;
}

/** The payable amount of the one invoice, or the code and message that refused the file. */
async function read(file: string): Promise<string> {
  try {
    const docs = await all(
      (await openSource(file, 'invoice', { company: COMPANY, mapping })).documents,
    );
    return (docs[0].request as { Total: { PayableAmount: string } }).Total.PayableAmount;
  } catch (err) {
    return `${(err as { code: string }).code}: ${(err as Error).message}`;
  }
}

describe('formula values a writer did not compute', () => {
  test('a workbook that asks to recalculate on open (XlsxWriter: 0 saved) is refused naming the cell', async () => {
    // on main: VAT 0.00, issued as an exempt line at 1,000.00
    const refused = await read(
      await invoice('<c ><f>5+14</f><v>0</v></c>', 'calcId="124519" fullCalcOnLoad="1"'),
    );
    expect(refused).toMatch(/^EDOC_READ_UNSUPPORTED: /);
    expect(refused).toContain(
      'cell J2 of sheet "Ventas" holds a formula, and the workbook asks to recalculate its formulas when opened',
    );
  });

  test('a formula saved with an empty value (openpyxl) is refused as one without its value', async () => {
    // on main: the VAT cell read blank, issued as an excluded line at 1,000.00
    const refused = await read(await invoice('<c ><f>5+14</f><v/></c>'));
    expect(refused).toMatch(/^EDOC_READ_UNSUPPORTED: /);
    expect(refused).toContain(
      'cell J2 of sheet "Ventas" holds a formula without its computed value',
    );
  });

  test('a computed value is read: 19 saved by Excel gives 1,190.00; a text formula saved empty is blank', async () => {
    expect(await read(await invoice('<c ><f>5+14</f><v>19</v></c>', 'calcId="191029"'))).toBe(
      '1190.00',
    );
    // =IF(…,"") saved as an empty text: no VAT cell, an excluded line of 1,000.00
    expect(await read(await invoice('<c t="str"><f>IF(1&gt;2,19,"")</f><v></v></c>'))).toBe(
      '1000.00',
    );
  });
});
