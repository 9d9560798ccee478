/**
 * A column read like whole amounts grouped in the other convention: `164,710` under Siigo Nube's
 * decimal comma reads as 164.71, where an en-US export of whole pesos means 164710, and nothing fails
 * (reconcile passes: every figure is scaled alike). A column with such a cell (one separator, three
 * digits after it, 1–3 digits before, not starting with 0) and no cell that proves the mapping's
 * convention (`12,5`, `0,125`, `1234,567`) refuses the whole file; `format.threeDecimals` says a
 * column really has three decimals. Real files in temp folders, the shipped Siigo Nube preset or a
 * copy of it; figures by hand in the comments.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSheetSource } from '../../src/read/sheet-source.js';
import { xlsxPackage } from '../helpers/xlsx-package.js';
import { MAPPINGS, readAll, tempFile } from './helpers.js';
import { SIIGO_COLUMNS, siigoCsv, siigoInvoice } from './siigo-export.js';

const SIIGO = join(MAPPINGS, 'erp/siigo-nube-invoice.yaml');
const COMPANY = { alias: 'main', nit: '900123456' };

/** The Siigo Nube preset with `threeDecimals` naming `columns`. */
async function siigoStating(...columns: string[]): Promise<Mapping> {
  const yaml = await readFile(SIIGO, 'utf8');
  const edited = yaml.replace(
    '  thousands: ""\n',
    `  thousands: ""\n  threeDecimals: [${columns.join(', ')}]\n`,
  );
  expect(edited).not.toBe(yaml);
  return loadMapping(await tempFile('siigo-tres-decimales.yaml', edited));
}

type Invoice = {
  Lines: { Quantity: string; UnitPrice: string }[];
  Total: { PayableAmount: string };
};
const figures = (docs: { request?: unknown }[]): [string[], string | undefined][] =>
  docs.map((d) => {
    const r = d.request as Invoice | undefined;
    return [r?.Lines.map((l) => `${l.Quantity} × ${l.UnitPrice}`) ?? [], r?.Total.PayableAmount];
  });

/** An en-US export of whole pesos: 164,710 (one hundred sixty-four thousand…) beside 98000. */
const EN_US = [
  siigoInvoice('990000601', [['1', '164,710']], '164,710'), // rows 2, 3
  siigoInvoice('990000602', [['2', '98000']], '196000'), // rows 4, 5
];

describe('a column read like whole amounts grouped in the other convention', () => {
  it('Siigo Nube: 164,710 beside 98000 refuses the file naming the column, the rows and both fixes; 12,5 proves the comma', async () => {
    const file = await tempFile('ventas.csv', siigoCsv(EN_US));
    const err = await readAll(file, await loadMapping(SIIGO), 'invoice').catch((e: Error) => e);
    expect(err).toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { file: 'ventas.csv', row: 2, column: 'Valor unitario', value: '164,710' },
    });
    expect((err as Error).message).toBe(
      'ventas.csv row 2, column "Valor unitario": "164,710" reads as 164.71 in the mapping\'s format ' +
        '(decimal ",", thousands "") and as 164710 with decimal ".", thousands ",": the column\'s ' +
        'numbers do not show which, since none has decimals other than three digits after ",", and ' +
        'row 4 holds "98000", a whole number written without a separator. The column reads like ' +
        'whole amounts grouped in thousands with ",", which would be issued 1000 times too small. ' +
        "Nothing of the file is sent: if the export groups thousands, fix the mapping's format " +
        '(decimal: ".", thousands: ","); if the column has three decimals, say so in the mapping\'s ' +
        'format (threeDecimals: [Valor unitario]); and drop the file again',
    );
    // one cell with another shape (12,5) proves the decimal comma: the same export reads as before
    const proved = await tempFile(
      'ventas.csv',
      siigoCsv([...EN_US, siigoInvoice('990000603', [['2', '12,5']], '25,00')]),
    );
    const { docs } = await readAll(proved, await loadMapping(SIIGO), 'invoice');
    // 1 × 164.71 = 164.71 (VAT 0 %), 2 × 98000 = 196000.00, 2 × 12.5 = 25.00
    expect(figures(docs)).toEqual([
      [['1 × 164.71'], '164.71'],
      [['2 × 98000.00'], '196000.00'],
      [['2 × 12.50'], '25.00'],
    ]);
    expect(docs.flatMap((d) => d.problems)).toEqual([]);
  });

  it('a three-decimal quantity (2, 1,375) is refused until the format says so, then read as 1.375', async () => {
    const csv = siigoCsv([
      siigoInvoice('990000611', [['2', '10000,00']], '20000,00'), // rows 2, 3: 2 × 10000 = 20000.00
      siigoInvoice('990000612', [['1,375', '8000,00']], '11000,00'), // rows 4, 5: 1.375 × 8000 = 11000.00
    ]);
    const file = await tempFile('kilos.csv', csv);
    await expect(readAll(file, await loadMapping(SIIGO), 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      message: expect.stringContaining(
        'row 2 holds "2", a whole number written without a separator',
      ),
      context: { row: 4, column: 'Cantidad producto', value: '1,375' },
    });
    const { docs } = await readAll(file, await siigoStating('Cantidad producto'), 'invoice');
    expect(figures(docs)).toEqual([
      [['2 × 10000.00'], '20000.00'],
      [['1.375 × 8000.00'], '11000.00'],
    ]);
  });

  it('a column only of three-decimal cells is refused too, and read once the format says so or a cell proves the comma', async () => {
    const csv = siigoCsv([
      siigoInvoice('990000621', [['2,00', '12,500']], '25,00'), // 2 × 12.5 = 25.00, or 2 × 12500
      siigoInvoice('990000622', [['1,00', '3,250']], '3,25'), // 1 × 3.25, or 1 × 3250
    ]);
    const file = await tempFile('precios.csv', csv);
    const err = await readAll(file, await loadMapping(SIIGO), 'invoice').catch((e: Error) => e);
    expect(err).toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { row: 2, column: 'Valor unitario', value: '12,500' },
    });
    expect((err as Error).message).toContain(
      'none has decimals other than three digits after ",", and every number in it has exactly three decimals',
    );
    expect((err as Error).message).toContain('(threeDecimals: [Valor unitario])');
    const { docs } = await readAll(file, await siigoStating('valor  UNITARIO'), 'invoice');
    expect(figures(docs)).toEqual([
      [['2 × 12.50'], '25.00'],
      [['1 × 3.25'], '3.25'],
    ]);
    // 0,125 and 1234,567 prove the decimal comma (no group starts with 0 or follows four digits)
    for (const proof of ['0,125', '1234,567']) {
      const proved = siigoCsv([
        siigoInvoice('990000621', [['2,00', '12,500']], '25,00'),
        siigoInvoice('990000622', [['1,00', proof]], proof),
      ]);
      const read = await readAll(
        await tempFile('precios.csv', proved),
        await loadMapping(SIIGO),
        'invoice',
      );
      expect(read.docs.map((d) => d.request !== undefined)).toEqual([true, true]);
    }
  });
});

/** A sheet of Siigo Nube's columns: header text, then each cell a number (`[n]`), text or blank. */
function siigoSheet(rows: (string | [number])[][]): Buffer {
  const col = (j: number): string =>
    j < 26 ? String.fromCharCode(65 + j) : `A${String.fromCharCode(65 + j - 26)}`;
  const cell = (c: string | [number], at: string): string =>
    typeof c !== 'string'
      ? `<c r="${at}"><v>${c[0]}</v></c>`
      : c === ''
        ? ''
        : `<c r="${at}" t="inlineStr"><is><t>${c}</t></is></c>`;
  const xml = rows
    .map(
      (r, i) => `<row r="${i + 1}">${r.map((c, j) => cell(c, `${col(j)}${i + 1}`)).join('')}</row>`,
    )
    .join('');
  return xlsxPackage({ sheets: [['Hoja1', xml]] });
}

describe('a spreadsheet', () => {
  /** The three-decimal quantity export with its numbers as typed numbers, or as text. */
  function kilos(typed: boolean): (string | [number])[][] {
    const n = (v: number, text: string): string | [number] => (typed ? [v] : text);
    return [
      SIIGO_COLUMNS,
      ...siigoInvoice('990000641', [['2', '10000']], '20000'),
      ...siigoInvoice('990000642', [['1,375', '8000']], '11000'),
    ].map((r, i) =>
      i === 0
        ? r
        : (r as string[]).map((c, j) =>
            ['Cantidad producto', 'Valor unitario', 'Valor Forma de Pago'].includes(
              SIIGO_COLUMNS[j],
            ) && c !== ''
              ? n(Number(c.replace(',', '.')), c)
              : c,
          ),
    );
  }

  it('whose cells are typed numbers is read as typed (1.375 reaches the mapping as 1,375); as text they are judged', async () => {
    const dir = await tempFile('x', '');
    const file = join(dir, '..', 'kilos.xlsx');
    await writeFile(file, siigoSheet(kilos(true)));
    const opened = await openSheetSource(file, await loadMapping(SIIGO), {
      kind: 'invoice',
      company: COMPANY,
    });
    const docs = [];
    for await (const d of opened.documents) docs.push(d);
    expect(figures(docs)).toEqual([
      [['2 × 10000.00'], '20000.00'],
      [['1.375 × 8000.00'], '11000.00'],
    ]);
    // the same cells as text are judged like a CSV file's: 1,375 beside 2 is refused
    const texts = join(dir, '..', 'kilos-texto.xlsx');
    await writeFile(texts, siigoSheet(kilos(false)));
    const asText = await openSheetSource(texts, await loadMapping(SIIGO), {
      kind: 'invoice',
      company: COMPANY,
    });
    const read = async (): Promise<void> => {
      for await (const d of asText.documents) void d;
    };
    await expect(read()).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { file: 'kilos-texto.xlsx', row: 4, column: 'Cantidad producto', value: '1,375' },
    });
  });
});
