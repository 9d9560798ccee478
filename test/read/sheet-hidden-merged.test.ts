/**
 * Spreadsheets as a person sees them: the first sheet is the first visible one (a hidden sheet before it,
 * an old copy or a parameters sheet, is not the export), and a merged range over the table is refused
 * (only its first cell holds the value; the others would be read blank: with the sales mapping a blank
 * `iva` is a VAT-excluded line, 1,000.00 issued instead of 1,190.00). Read through openSource with the
 * shipped sales mapping (decimal ",", thousands ".").
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSource } from '../../src/read/open-source.js';
import { compileCondition } from '../../src/map/row-condition.js';
import { headerTest, MergedCells, tableRules } from '../../src/read/sheet-merges.js';
import { xlsxPackage } from '../helpers/xlsx-package.js';
import { sale } from '../map/helpers.js';
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

type Invoice = { SerieNumber: string; Total: { PayableAmount: string } };

/** Rows of inline-string cells as `<sheetData>` XML (A1 references). */
function sheetXml(rows: string[][], firstRow = 1): string {
  return rows
    .map(
      (cells, i) =>
        `<row r="${i + firstRow}">${cells
          .map(
            (c, j) =>
              `<c r="${String.fromCharCode(65 + j)}${i + firstRow}" t="inlineStr"><is><t>${c}</t></is></c>`,
          )
          .join('')}</row>`,
    )
    .join('');
}

const table = (rows: Record<string, string>[]): string[][] => [
  Object.keys(rows[0]),
  ...rows.map((r) => Object.values(r)),
];

async function outcome(
  name: string,
  content: Buffer,
  m: Mapping = mapping,
): Promise<{
  docs?: { request?: unknown; problems: unknown[] }[];
  error?: { code: string; message: string };
}> {
  const file = path.join(dir, name);
  await writeFile(file, content);
  try {
    return {
      docs: await all(
        (await openSource(file, 'invoice', { company: COMPANY, mapping: m })).documents,
      ),
    };
  } catch (err) {
    return { error: { code: (err as { code: string }).code, message: (err as Error).message } };
  }
}

describe('hidden sheets', () => {
  test('an .xlsx whose first sheet is hidden is read from its first visible sheet', async () => {
    const old = table([sale('9', '1', { precio_unitario: '5.000,00' })]);
    const now = table([sale('1', '1')]);
    const { docs, error } = await outcome(
      'oculta.xlsx',
      xlsxPackage({
        sheets: [
          ['Anterior', sheetXml(old), { state: 'hidden' }],
          ['Ventas', sheetXml(now)],
        ],
      }),
    );
    expect(error).toBeUndefined();
    // 1 × 1.000,00 + 19 % = 1,190.00 (the hidden sheet's 5,000.00 invoice SETP9 is not read)
    expect(
      docs?.map((d) => [
        (d.request as Invoice).SerieNumber,
        (d.request as Invoice).Total.PayableAmount,
      ]),
    ).toEqual([['1', '1190.00']]);
  });

  test('an .xls saved by LibreOffice whose first sheet is hidden is read from the next one', async () => {
    // test/fixtures/sheets/ventas.xls (LibreOffice): sheets "Facturas" then "Segunda"; Facturas hidden
    // here by its BoundSheet8 record's hsState byte (0 visible, 1 hidden)
    const bytes = await readFile(path.join(ROOT, 'test/fixtures/sheets/ventas.xls'));
    const name = Buffer.from('\u0000Facturas', 'latin1'); // cch 8, fHighByte 0, then the name
    const at = bytes.indexOf(name);
    expect(at).toBeGreaterThan(0);
    const record = at - 7; // the record's data: lbPlyPos (4), hsState (1), dt (1), cch (1), then fHighByte
    expect(bytes.readUInt16LE(record - 4)).toBe(0x0085); // the BoundSheet8 record type
    expect(bytes[record + 4]).toBe(0);
    bytes[record + 4] = 1;
    const { docs, error } = await outcome('oculta.xls', bytes);
    expect(error).toBeUndefined();
    // Segunda's invoice (sheet-source.test.ts): 2 × 18,000 = 36,000 + 19 % 6,840; 5 × 6,200 = 31,000 at 0 %:
    // 73,840.00; Facturas' invoices are not read
    expect(
      docs?.map((d) => [
        (d.request as Invoice).SerieNumber,
        (d.request as Invoice).Total.PayableAmount,
      ]),
    ).toEqual([['990000203', '73840.00']]);
  });
});

describe('merged cells', () => {
  test("an invoice's VAT rate merged down over its two lines refuses the file, naming the range", async () => {
    // columns A..L: iva is L. L2:L3 merged holds 19 in L2 only; L3 would be read blank (a VAT-excluded line)
    const rows = table([sale('1', '1'), sale('1', '2', { iva: '' })]);
    const { docs, error } = await outcome(
      'combinadas.xlsx',
      xlsxPackage({
        sheets: [
          [
            'Ventas',
            sheetXml(rows),
            { after: '<mergeCells count="1"><mergeCell ref="L2:L3"/></mergeCells>' },
          ],
        ],
      }),
    );
    expect(docs).toBeUndefined();
    expect(error?.code).toBe('EDOC_READ_UNSUPPORTED');
    expect(error?.message).toContain('cells L2:L3 of sheet "Ventas" are merged (rows 2 to 3)');
  });

  test('a title merged across the columns above the header is read as before', async () => {
    const rows = [['Ventas de noviembre'], ...table([sale('1', '1')])];
    const titled = { ...mapping, framing: { ...mapping.framing, headerRow: 2 } };
    const { docs, error } = await outcome(
      'titulo.xlsx',
      xlsxPackage({
        sheets: [
          [
            'Ventas',
            sheetXml(rows),
            { after: '<mergeCells count="1"><mergeCell ref="A1:L1"/></mergeCells>' },
          ],
        ],
      }),
      titled,
    );
    expect(error).toBeUndefined();
    // 1 × 1.000,00 + 19 % = 1,190.00
    expect(docs?.map((d) => (d.request as Invoice).Total.PayableAmount)).toEqual(['1190.00']);
  });
});

describe('merged title cells above a header that framing names', () => {
  // a report's title block: the company as a label and its value in two cells (row 2), then the period
  // merged across (row 3), the header on row 5; the table holds no merge
  const titled = (): string[][] => [
    ['Ventas por factura'],
    ['Empresa:', 'Demo Comercial SAS'],
    ['Periodo: 01/11/2026 - 30/11/2026'],
    [],
    ...table([sale('1', '1'), sale('1', '2', { precio_unitario: '500,00' })]),
  ];
  const merges =
    '<mergeCells count="2"><mergeCell ref="A1:L1"/><mergeCell ref="A3:L3"/></mergeCells>';
  const book = (): Buffer =>
    xlsxPackage({ sheets: [['Ventas', sheetXml(titled()), { after: merges }]] });

  test('found by its names: the title merged below a two-cell title row is read as before', async () => {
    const framed = { ...mapping, framing: { findHeader: ['prefijo', 'numero'] } };
    const { docs, error } = await outcome('titulo-empresa.xlsx', book(), framed);
    expect(error).toBeUndefined();
    // 1 × 1.000,00 + 1 × 500,00 = 1,500.00 + 19 % 285.00 = 1,785.00, from rows 6 and 7
    expect(docs?.map((d) => (d.request as Invoice).Total.PayableAmount)).toEqual(['1785.00']);
  });

  test('at its row: the same, and a merge over the table below it is still refused', async () => {
    const framed = { ...mapping, framing: { headerRow: 5 } };
    const { docs, error } = await outcome('titulo-fila.xlsx', book(), framed);
    expect(error).toBeUndefined();
    expect(docs?.map((d) => (d.request as Invoice).Total.PayableAmount)).toEqual(['1785.00']);
    const over = await outcome(
      'titulo-y-tabla.xlsx',
      xlsxPackage({
        sheets: [
          [
            'Ventas',
            sheetXml(titled()),
            {
              after: merges
                .replace('count="2"', 'count="3"')
                .replace('</mergeCells>', '<mergeCell ref="L6:L7"/></mergeCells>'),
            },
          ],
        ],
      }),
      framed,
    );
    expect(over.error?.message).toContain('cells L6:L7 of sheet "Ventas" are merged (rows 6 to 7)');
  });
});

describe('the header a merge is judged against (.xlsx and .xls alike)', () => {
  const rows: [number, string[]][] = [
    [1, ['Ventas por factura']],
    [2, ['Empresa:', 'Demo Comercial SAS']],
    [3, ['Periodo: 01/11/2026 - 30/11/2026']],
    [5, ['prefijo', 'numero', 'fecha']],
    [6, ['SETP', '1', '18/11/2026']],
  ];
  const verdict = (framing: Parameters<typeof headerTest>[0], first: number, last: number) => {
    const merged = new MergedCells(headerTest(framing));
    for (const [row, cells] of rows) merged.row(row, cells);
    try {
      merged.merge('Ventas', `A${first}:C${last}`, first, last, 3 * (last - first + 1));
      return 'read';
    } catch {
      return 'refused';
    }
  };
  test('framing names it; without framing it is the first row with two cells', () => {
    expect(verdict({ findHeader: ['Prefijo', 'numero'] }, 3, 3)).toBe('read');
    expect(verdict({ headerRow: 5 }, 3, 3)).toBe('read');
    expect(verdict({ headerRow: 5 }, 5, 5)).toBe('refused');
    expect(verdict({ findHeader: ['prefijo'] }, 6, 7)).toBe('refused');
    expect(verdict(undefined, 1, 1)).toBe('read');
    expect(verdict(undefined, 3, 3)).toBe('refused');
  });
});

describe('a merged footer below the table', () => {
  // invoice SETP1 on rows 2-3, then a footer on row 4: "TOTAL" merged across A4:K4 and the sum in L4
  const footed = (): string[][] => [
    ...table([sale('1', '1'), sale('1', '2')]),
    ['TOTAL', '', '', '', '', '', '', '', '', '', '', '2.380,00'],
  ];
  const book = (mergeRefs: string[]): Buffer =>
    xlsxPackage({
      sheets: [
        [
          'Ventas',
          sheetXml(footed()),
          {
            after: `<mergeCells count="${mergeRefs.length}">${mergeRefs
              .map((r) => `<mergeCell ref="${r}"/>`)
              .join('')}</mergeCells>`,
          },
        ],
      ],
    });
  const skipping = (): Mapping => ({
    ...mapping,
    rows: { skip: compileCondition({ column: 'prefijo', matches: '^total' }, 'rows.skip', 't') },
  });

  test('dropped by rows.skip, it does not refuse the sheet; the invoice above it is read', async () => {
    const { docs, error } = await outcome('pie.xlsx', book(['A4:K4']), skipping());
    expect(error).toBeUndefined();
    // 1 × 1.000,00 + 1 × 1.000,00 = 2,000.00 + 19 % 380.00 = 2,380.00 (the footer is no line)
    expect(docs?.map((d) => (d.request as Invoice).Total.PayableAmount)).toEqual(['2380.00']);
  });

  test('a merge inside the data, or one reaching a data row from the footer, still refuses', async () => {
    for (const ref of ['L2:L3', 'A3:A4']) {
      const { docs, error } = await outcome('pie-tabla.xlsx', book(['A4:K4', ref]), skipping());
      expect(docs).toBeUndefined();
      expect(error?.code).toBe('EDOC_READ_UNSUPPORTED');
      expect(error?.message).toContain(`cells ${ref} of sheet "Ventas" are merged`);
    }
  });

  test('a mapping that does not drop the footer still refuses it merged', async () => {
    const { error } = await outcome('pie-sin-skip.xlsx', book(['A4:K4']));
    expect(error?.code).toBe('EDOC_READ_UNSUPPORTED');
    expect(error?.message).toContain('cells A4:K4 of sheet "Ventas" are merged (rows 4 to 4)');
  });

  test('the rows a merge is judged against, as the .xls reader hands them over', () => {
    const rules = tableRules(skipping());
    const verdict = (first: number, last: number): string => {
      const merged = new MergedCells(rules.isHeader, rules.drops);
      for (const [i, cells] of footed().entries()) merged.row(i + 1, cells);
      try {
        merged.merge('Ventas', `A${first}:K${last}`, first, last, 11 * (last - first + 1));
        return 'read';
      } catch {
        return 'refused';
      }
    };
    expect(verdict(4, 4)).toBe('read');
    expect(verdict(4, 6)).toBe('read'); // rows 5 and 6 hold nothing
    expect(verdict(3, 4)).toBe('refused');
    expect(verdict(1, 1)).toBe('refused'); // the header
  });
});
