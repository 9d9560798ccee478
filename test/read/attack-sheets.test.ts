/**
 * Spreadsheets an outsider sends: renamed files, formulas without a computed value, text that looks like a
 * number or a date, a parent row left blank — through openSource (the path the daemon reads by) and the
 * shipped sales mapping (decimal ",", thousands ".", dd/MM/yyyy). Each reads exactly or is refused.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { openSource } from '../../src/read/open-source.js';
import { sheetRows, xlsxPackage } from '../helpers/xlsx-package.js';
import { sale, toCsv } from '../map/helpers.js';
import { all, COMPANY, removeDir, tempDir } from './read-helpers.js';
import type { SourceDocument } from '../../src/read/source-document.js';

/** The file's documents, or the error that refused it whole. */
async function outcome(
  file: string,
  m?: Mapping,
): Promise<{ docs?: SourceDocument[]; error?: { code: string; message: string } }> {
  try {
    return {
      docs: await all(
        (await openSource(file, 'invoice', { company: COMPANY, mapping: m ?? mapping })).documents,
      ),
    };
  } catch (err) {
    return { error: { code: (err as { code: string }).code, message: (err as Error).message } };
  }
}

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

const COLUMNS = [
  'prefijo',
  'numero',
  'fecha',
  'hora',
  'cliente_tipo_doc',
  'cliente_doc',
  'cliente_nombre',
  'linea',
  'descripcion',
  'cantidad',
  'precio_unitario',
  'iva',
];

/** One sheet: the header, then rows of cells as `<c>` XML (inline strings unless the test gives the XML). */
function sheet(rows: string[][]): Buffer {
  return xlsxPackage({ sheets: [['Hoja1', sheetRows(rows)]] });
}

async function write(name: string, content: string | Buffer): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, content);
  return file;
}

type Invoice = {
  Lines: { Quantity: string; UnitPrice: string; TaxSubTotals?: { TaxPercentage: string }[] }[];
  Total: { PayableAmount: string };
  IssueDate: string;
};

describe('spreadsheets at their edges', () => {
  test("a CSV renamed .xlsx is read as the CSV it is, with the mapping's number rules (1 × 1.000,00 + 19 % = 1,190.00)", async () => {
    const file = await write('ventas.xlsx', toCsv([sale('1', '1')]));
    const { docs } = await outcome(file);
    expect(docs?.map((d) => [d.problems, (d.request as Invoice).Total.PayableAmount])).toEqual([
      [[], '1190.00'],
    ]);
  });

  test('an .xlsx renamed .csv is refused whole as binary, never read as rows', async () => {
    const file = await write(
      'ventas.csv',
      sheet([
        COLUMNS,
        [
          'SETP',
          '1',
          '18/11/2026',
          '09:15:00',
          '31',
          '800197268',
          'Cliente',
          '1',
          'Silla',
          '1',
          '1.000,00',
          '19',
        ],
      ]),
    );
    expect((await outcome(file)).error?.code).toBe('EDOC_READ_BINARY');
  });

  test('a formula without its computed value refuses the file naming the cell; read as blank it would drop the VAT', async () => {
    // iva L2 is =5+14 with no <v>: on main read as blank = an excluded line, issued at 1,000.00 instead of 1,190.00
    const file = await write(
      'formulas.xlsx',
      sheet([
        COLUMNS,
        [
          'SETP',
          '1',
          '18/11/2026',
          '09:15:00',
          '31',
          '800197268',
          'Cliente',
          '1',
          'Silla',
          '1',
          '1.000,00',
          '<c ><f>5+14</f></c>',
        ],
      ]),
    );
    const { error } = await outcome(file);
    expect(error?.code).toBe('EDOC_READ_UNSUPPORTED');
    expect(error?.message).toContain(
      'cell L2 of sheet "Hoja1" holds a formula without its computed value',
    );
  });

  test('a formula with its cached value reads the value; an empty cached text is blank', async () => {
    const file = await write(
      'cached.xlsx',
      sheet([
        COLUMNS,
        [
          'SETP',
          '1',
          '18/11/2026',
          '09:15:00',
          '31',
          '800197268',
          'Cliente',
          '1',
          'Silla',
          '<c ><f>1+1</f><v>2</v></c>',
          '1.000,00',
          '<c ><f>5+14</f><v>19</v></c>',
        ],
      ]),
    );
    const [d] = await all(
      (await openSource(file, 'invoice', { company: COMPANY, mapping })).documents,
    );
    // 2 × 1,000.00 = 2,000.00 + 19 % 380.00 = 2,380.00
    expect((d.request as Invoice).Total.PayableAmount).toBe('2380.00');
  });

  test("text cells that look like numbers and dates read by the mapping's own rules", async () => {
    // "1.234,50" text = 1234.50; "1,234.50" text under decimal "," refuses the sheet; "2026-11-18" text is not dd/MM/yyyy
    const rows = [
      COLUMNS,
      [
        'SETP',
        '1',
        '18/11/2026',
        '09:15:00',
        '31',
        '800197268',
        'Cliente',
        '1',
        'Silla',
        '1',
        '1.234,50',
        '19',
      ],
      [
        'SETP',
        '2',
        '18/11/2026',
        '09:15:00',
        '31',
        '800197268',
        'Cliente',
        '1',
        'Silla',
        '1',
        '1,234.50',
        '19',
      ],
      [
        'SETP',
        '3',
        '2026-11-18',
        '09:15:00',
        '31',
        '800197268',
        'Cliente',
        '1',
        'Silla',
        '1',
        '1.000',
        '19',
      ],
    ];
    // a text cell "1,234.50" is a number with a decimal point: the sheet is in the other convention, refused whole
    await expect(
      all(
        (
          await openSource(await write('texto.xlsx', sheet(rows)), 'invoice', {
            company: COMPANY,
            mapping,
          })
        ).documents,
      ),
    ).rejects.toMatchObject({
      code: 'EDOC_MAP_FORMAT_MISMATCH',
      context: { file: 'texto.xlsx', row: 3, column: 'precio_unitario', value: '1,234.50' },
    });
    // "1.234.5" is a number in neither convention: its document alone is refused
    rows[2][10] = '1.234.5';
    const docs = await all(
      (
        await openSource(await write('texto2.xlsx', sheet(rows)), 'invoice', {
          company: COMPANY,
          mapping,
        })
      ).documents,
    );
    expect((docs[0].request as Invoice).Lines[0].UnitPrice).toBe('1234.50');
    expect(docs[1].request).toBeUndefined();
    expect(docs[1].problems.map((p) => [p.code, p.column, p.rows])).toEqual([
      ['EDOC_MAP_BAD_NUMBER', 'precio_unitario', [3]],
    ]);
    expect(docs[2].request).toBeUndefined();
    expect(docs[2].problems.map((p) => p.column)).toContain('fecha');
  });

  test("a blank parent cell (a merged cell's lower half) with fill-down takes the row above; without it the document is refused", async () => {
    const rows = [
      COLUMNS,
      [
        'SETP',
        '1',
        '18/11/2026',
        '09:15:00',
        '31',
        '800197268',
        'Cliente',
        '1',
        'Silla',
        '1',
        '1.000,00',
        '19',
      ],
      ['', '', '', '', '', '', '', '2', 'Mesa', '1', '1.000,00', '19'],
    ];
    const file = await write('merged.xlsx', sheet(rows));
    const plain = await all(
      (await openSource(file, 'invoice', { company: COMPANY, mapping })).documents,
    );
    expect(plain.map((d) => [d.source.rows, d.problems.map((p) => p.code)])).toEqual([
      [[2, 3], ['EDOC_MAP_ROW_WITHOUT_KEY']],
    ]);
    const filled: Mapping = {
      ...mapping,
      framing: { fillDown: ['fecha', 'hora', 'cliente_tipo_doc', 'cliente_doc', 'cliente_nombre'] },
    };
    const [d] = await all(
      (await openSource(file, 'invoice', { company: COMPANY, mapping: filled })).documents,
    );
    // 2 lines × 1,000.00 + 19 % = 2,380.00
    expect([d.problems, (d.request as Invoice).Total.PayableAmount]).toEqual([[], '2380.00']);
  });
});
