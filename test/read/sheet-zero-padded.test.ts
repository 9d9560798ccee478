/**
 * A code or an id kept in a numeric cell under a zero-padded format (`00000`, Excel's "Special ›
 * Zip code" or a custom `0000000000`) shows its leading zeros, and a CSV saved from the sheet writes
 * them; the same export read from the sheet keeps them too. Through openSource with the shipped sales
 * mapping: product 123 shown `00123` is issued with Gtin `00123`; its amounts are unchanged
 * (2 × 1.000,00 + 19 % = 2,380.00).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSource } from '../../src/read/open-source.js';
import { paddedText, zeroPadWidth } from '../../src/read/sheet-values.js';
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

// style 1: `00000`; style 2: `#,##0` (no padding)
const STYLES =
  '<numFmts><numFmt numFmtId="164" formatCode="00000"/><numFmt numFmtId="165" formatCode="#,##0"/></numFmts>' +
  '<cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/></cellXfs>';

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
    const header = [
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
    const row = [
      'SETP',
      '1',
      '18/11/2026',
      '31',
      '800197268',
      'Cliente',
      [123, 1],
      'Silla',
      [2, 2],
      '1.000,00',
      '19',
    ] as (string | [number, number])[];
    const file = path.join(dir, 'codigos.xlsx');
    await writeFile(
      file,
      xlsxPackage({ sheets: [['Ventas', sheetRows([header, row])]], styles: STYLES }),
    );
    const [doc] = await all(
      (await openSource(file, 'invoice', { company: COMPANY, mapping })).documents,
    );
    const request = doc.request as {
      Lines: { Item: { Gtin: string }; Quantity: string }[];
      Total: { PayableAmount: string };
    };
    expect([
      doc.problems,
      request.Lines[0].Item.Gtin,
      request.Lines[0].Quantity,
      request.Total.PayableAmount,
    ]).toEqual([[], '00123', '2', '2380.00']);
  });
});
