/**
 * Spreadsheet cells whose stored number is not what the sheet shows: a percent-formatted cell (stored
 * 0.1, shown 10%) and an end-of-day time stamp under a date-only format (stored 46344.99999999, shown
 * 18/11/2026). Through openSource and the shipped sales mapping (decimal ",", thousands ".",
 * dd/MM/yyyy), with a discount given as a rate. Each reads as the sheet shows it or is refused.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSource } from '../../src/read/open-source.js';
import { percentText, serialDateText } from '../../src/read/sheet-values.js';
import { sheetRows, xlsxPackage, type SheetCell } from '../helpers/xlsx-package.js';
import { all, COMPANY, removeDir, tempDir } from './read-helpers.js';

const ROOT = path.join(import.meta.dirname, '..', '..');
let mapping: Mapping;
let dir: string;
beforeAll(async () => {
  dir = await tempDir();
  // the shipped sales mapping plus a discount column given as a rate: 10 means 10 %
  const yaml = (await readFile(path.join(ROOT, 'config/mappings/sales.csv.yaml'), 'utf8')).replace(
    '      vat: { column: iva, as: percent }',
    "      vat: { column: iva, as: percent }\n      discount: { expr: 'cantidad * precio_unitario * coalesce(dcto, 0) / 100', as: decimal }",
  );
  const file = path.join(dir, 'ventas-dcto.csv.yaml');
  await writeFile(file, yaml);
  mapping = await loadMapping(file);
});
afterAll(async () => {
  await removeDir(dir);
});

const COLUMNS = 'prefijo numero fecha vence cliente_tipo_doc cliente_doc cliente_nombre'.split(' ');
const LINE = ['linea', 'descripcion', 'cantidad', 'precio_unitario', 'iva', 'dcto'];

/** Styles: 0 General, 1 `0%` (built-in 9), 2 `0.00 %` (custom 164), 3 `dd/mm/yyyy` (built-in 14). */
const STYLES =
  '<numFmts count="1"><numFmt numFmtId="164" formatCode="0.00\\ %"/></numFmts>' +
  '<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="9"/><xf numFmtId="164"/><xf numFmtId="14"/></cellXfs>';

type Cell = SheetCell;

async function workbook(name: string, rows: Cell[][]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, xlsxPackage({ sheets: [['Ventas', sheetRows(rows)]], styles: STYLES }));
  return file;
}

function invoice(numero: string, fecha: Cell, line: Cell[]): Cell[] {
  const customer = ['31', '800197268', 'Distribuidora Andina S.A.S.'];
  return ['SETP', numero, fecha, '18/12/2026', ...customer, '1', 'Silla', ...line];
}

type Invoice = {
  IssueDate: string;
  Lines: { NetAmount: string; TaxSubTotals: { TaxPercentage: string }[] }[];
  Total: { PayableAmount: string };
};

async function read(file: string): Promise<
  {
    payable?: string;
    net?: string;
    vat?: string;
    issued?: string;
    problems: { code: string; column?: string; rows?: number[] }[];
  }[]
> {
  const docs = await all(
    (await openSource(file, 'invoice', { company: COMPANY, mapping })).documents,
  );
  return docs.map((d) => {
    const r = d.request as Invoice | undefined;
    return {
      payable: r?.Total.PayableAmount,
      net: r?.Lines[0].NetAmount,
      vat: r?.Lines[0].TaxSubTotals[0].TaxPercentage,
      issued: r?.IssueDate,
      problems: d.problems.map((p) => ({ code: p.code, column: p.column, rows: p.rows })),
    };
  });
}

describe('a percent-formatted cell reads as the percentage the sheet shows', () => {
  test('a 10% discount is never a tenth of one per cent; a 19% VAT cell is 19 %', async () => {
    const file = await workbook('porcentajes.xlsx', [
      [...COLUMNS, ...LINE],
      // dcto stored 0.1 shown 10%: read as 0.1 it was 2 × 50,000.00 × 0.1 % = 100.00 off, issued at
      // 99,900.00 + 18,981.00 = 118,881.00; as the CSV of the sheet ("10%") the expression refuses it
      invoice('1', '18/11/2026', ['2', '50.000,00', '19', [0.1, 1]]),
      // the same under a custom `0.00 %` format
      invoice('2', '18/11/2026', ['2', '50.000,00', '19', [0.1, 2]]),
      // iva stored 0.19 shown 19%: 1 × 1,000.00 + 19 % 190.00 = 1,190.00
      invoice('3', '18/11/2026', ['1', '1.000,00', [0.19, 1], '0']),
    ]);
    const [tenPercent, custom, vat] = await read(file);
    expect(tenPercent).toEqual({
      problems: [{ code: 'EDOC_MAP_EXPRESSION', column: 'dcto', rows: [2] }],
    });
    expect(custom.problems.map((p) => [p.code, p.column])).toEqual([
      ['EDOC_MAP_EXPRESSION', 'dcto'],
    ]);
    expect(vat).toMatchObject({ payable: '1190.00', net: '1000.00', vat: '19.00', problems: [] });
    // the refusal says why a cell the sheet shows as 10% is not a number to the expression
    const [first] = await all(
      (await openSource(file, 'invoice', { company: COMPANY, mapping })).documents,
    );
    expect(first.problems[0].message).toContain(
      'column "dcto" holds "10%", not a number (decimal ",", thousands "."): a percentage, whose scale an expression cannot tell (10 or 0.1)',
    );
  });

  test('the text a percent cell becomes', () => {
    expect(percentText(0.19, ',')).toBe('19%'); // 0.19 × 100 = 19.000000000000004 as a double
    expect(percentText(0.125, ',')).toBe('12,5%');
    expect(percentText(0.025, '.')).toBe('2.5%');
  });
});

describe('an end-of-day time stamp under a date-only format', () => {
  test('is the day the sheet shows, never the next one', async () => {
    // 46344 = 18/11/2026; 46344.99999999 is 23:59:59.999 of that day (an ERP's end-of-day stamp):
    // rounded to the second it was 19/11/2026 00:00:00, an invoice issued a day late
    expect(serialDateText(46344.99999999, false, 'dd/MM/yyyy')).toBe('18/11/2026 23:59:59');
    expect(serialDateText(46344 + 9.25 / 24, false, 'dd/MM/yyyy')).toBe('18/11/2026 09:15:00');
    const file = await workbook('fin-de-dia.xlsx', [
      [...COLUMNS, ...LINE],
      invoice('4', [46344.99999999, 3], ['1', '1.000,00', '19', '0']),
    ]);
    const [doc] = await read(file);
    expect(doc.issued).toBe('2026-11-18T23:59:59');
  });
});

describe('a mapping that reads rates as fractions', () => {
  test('reads a percent-formatted cell by its % sign, as it read the bare fraction before', async () => {
    // `as: fraction` took the stored 0.19 as 19 %; the cell now reaches it as `19%`, which says its scale
    const yaml = (await readFile(mapping.file, 'utf8')).replace(
      '      vat: { column: iva, as: percent }',
      '      vat: { column: iva, as: fraction }',
    );
    const file = path.join(dir, 'ventas-fraccion.csv.yaml');
    await writeFile(file, yaml);
    const fractions = await loadMapping(file);
    const sheet = await workbook('fraccion.xlsx', [
      [...COLUMNS, ...LINE],
      invoice('5', '18/11/2026', ['1', '1.000,00', [0.19, 1], '0']),
    ]);
    const [doc] = await all(
      (await openSource(sheet, 'invoice', { company: COMPANY, mapping: fractions })).documents,
    );
    // 1 × 1,000.00 + 19 % 190.00 = 1,190.00
    expect(doc.problems).toEqual([]);
    expect((doc.request as Invoice).Total.PayableAmount).toBe('1190.00');
  });
});

describe('a row rule testing a percent-formatted cell for zero', () => {
  test('reads 0% as zero and 10% as not, as it read 0 and 0.1', async () => {
    // promotional lines (a discount shown 10%) are billed apart: rows.skip { column: dcto, nonZero: true }
    const yaml = (
      await readFile(path.join(ROOT, 'config/mappings/sales.csv.yaml'), 'utf8')
    ).replace('kindCheck:', 'rows:\n  skip: { column: dcto, nonZero: true }\nkindCheck:');
    const file = path.join(dir, 'ventas-promo.csv.yaml');
    await writeFile(file, yaml);
    const promo = await loadMapping(file);
    const sheet = await workbook('promo.xlsx', [
      [...COLUMNS, ...LINE],
      invoice('6', '18/11/2026', ['1', '1.000,00', '19', [0, 1]]),
      invoice('7', '18/11/2026', ['1', '2.000,00', '19', [0.1, 1]]),
    ]);
    const docs = await all(
      (await openSource(sheet, 'invoice', { company: COMPANY, mapping: promo })).documents,
    );
    // invoice 6 (0%): 1 × 1,000.00 + 19 % = 1,190.00; invoice 7 (10%) skipped
    expect(docs.map((d) => [d.problems, (d.request as Invoice).Total.PayableAmount])).toEqual([
      [[], '1190.00'],
    ]);
  });
});

describe('a date cell holding a time of day under a format showing the day only', () => {
  test('is read by a date field as its day, as the sheet shows it', async () => {
    // vence 46374.6 = 18/12/2026 14:24:00 under dd/mm/yyyy: it reaches the mapping as
    // "18/12/2026 14:24:00"; the payment's due date (as: date) is the day, the document's (as: datetime) keeps the time
    const customer = ['31', '800197268', 'Distribuidora Andina S.A.S.'];
    const file = await workbook('vence-hora.xlsx', [
      [...COLUMNS, ...LINE],
      [
        'SETP',
        '5',
        [46344, 3],
        [46374.6, 3],
        ...customer,
        '1',
        'Silla',
        '1',
        '1.000,00',
        '19',
        '0',
      ],
    ]);
    const [doc] = await all(
      (await openSource(file, 'invoice', { company: COMPANY, mapping })).documents,
    );
    expect(doc.problems).toEqual([]);
    const request = doc.request as {
      DueDate: string;
      PaymentMeans: { DueDate: string }[];
      Total: { PayableAmount: string };
    };
    expect(request.PaymentMeans[0].DueDate).toBe('2026-12-18');
    expect(request.DueDate).toBe('2026-12-18T14:24:00');
    // 1 × 1.000,00 + 19 % = 1,190.00
    expect(request.Total.PayableAmount).toBe('1190.00');
  });
});
