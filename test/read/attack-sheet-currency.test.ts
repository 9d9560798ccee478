/**
 * A spreadsheet's amount cells formatted in another currency than the peso (`[$USD] #,##0.00`,
 * `#,##0.00 [$€-C0A]`, `"US$"#,##0.00`): the sheet shows `USD 1,234.50`, and a CSV saved from it writes
 * so, which no amount reads. The reader passed the bare number, and the shipped sales mapping (Currency
 * COP) issued the dollars as pesos: 2 × 1,234.50 = 2,469.00 + 19 % 469.11 = COP 2,938.11. Now the cell
 * reaches the mapping with its currency (`USD 1234,5`) and its invoice is refused naming the column and
 * row; a peso format (`[$$-240A]`, `"$"`, `[$COP]`) reads as before. Through `edoc-bridge submit` on the
 * emulator: what it stored is compared with what the sheet meant.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { foreignCurrency } from '../../src/read/sheet-values.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';
import { sheetRows, xlsxPackage, type SheetCell } from '../helpers/xlsx-package.js';

const root = path.join(import.meta.dirname, '../..');
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
}, 240_000);

const HEADER =
  'prefijo numero fecha cliente_tipo_doc cliente_doc cliente_nombre descripcion cantidad precio_unitario iva'.split(
    ' ',
  );

/** Style 0 General; 1 `[$USD] #,##0.00`; 2 `#,##0.00 [$€-C0A]`; 3 `[$$-240A] #,##0.00` (pesos). */
const STYLES =
  '<numFmts count="3"><numFmt numFmtId="164" formatCode="[$USD] #,##0.00"/>' +
  '<numFmt numFmtId="165" formatCode="#,##0.00 [$€-C0A]"/>' +
  '<numFmt numFmtId="166" formatCode="[$$-240A] #,##0.00"/></numFmts>' +
  '<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/></cellXfs>';

function row(numero: string, price: SheetCell): SheetCell[] {
  const text: SheetCell[] = ['SETP', numero, '18/11/2026', '31', '800197268', 'Cliente', 'Silla'];
  return [...text, [2, 0], price, [19, 0]];
}

describe('an amount cell formatted in another currency', () => {
  test('is refused naming its column and row, never issued as pesos; peso formats are issued', async () => {
    const made = await resources.daemonProject({
      kinds: { invoice: { mapping: path.join(root, 'config/mappings/sales.csv.yaml') } },
    });
    const file = path.join(made.project.dir, 'ventas.xlsx');
    const rows = [
      HEADER,
      row('990000101', [1234.5, 1]), // USD 1,234.50
      row('990000102', [1234.5, 2]), // 1.234,50 €
      row('990000103', [1234.5, 3]), // $ 1.234,50: pesos
      row('990000104', [1234.5, 0]), // General
    ];
    await writeFile(file, xlsxPackage({ sheets: [['Ventas', sheetRows(rows)]], styles: STYLES }));
    const run = await made.cli(['submit', file, '--kind', 'invoice'], { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    const result = await made.project.result('invoice', 'ventas.xlsx');
    expect(
      result?.documents.map((d) => [
        d.status,
        d.errors.map((e) => [e.code, e.field, e.rows, e.message]),
      ]),
    ).toEqual([
      [
        'invalid',
        [
          [
            'EDOC_MAP_BAD_NUMBER',
            'precio_unitario',
            [2],
            expect.stringContaining('"USD 1234,5" in column "precio_unitario" is not an amount'),
          ],
        ],
      ],
      [
        'invalid',
        [
          [
            'EDOC_MAP_BAD_NUMBER',
            'precio_unitario',
            [3],
            expect.stringContaining('"€ 1234,5" in column "precio_unitario"'),
          ],
        ],
      ],
      ['accepted', []],
      ['accepted', []],
    ]);
    const stored = await made.emulator.client.documents({ kind: 'invoice', withRequest: true });
    // 2 × 1,234.50 = 2,469.00 + 19 % 469.11 = 2,938.11, only for the peso cells
    expect(
      stored.map((d) => {
        const r = d.request as { SerieNumber: string; Total: { PayableAmount: string } };
        return [r.SerieNumber, r.Total.PayableAmount];
      }),
    ).toEqual([
      ['990000103', '2938.11'],
      ['990000104', '2938.11'],
    ]);
  }, 90_000);

  test('which formats show another currency', () => {
    const shown = (code: string): string | undefined => foreignCurrency(code);
    expect(
      [
        '[$USD] #,##0.00',
        '#,##0.00 [$€-C0A]',
        '"US$"#,##0.00',
        '"USD" #,##0.00',
        '#,##0.00\\ "€"',
        '#,##0.00 €',
        '[$£-809]#,##0.00;-[$£-809]#,##0.00',
      ].map(shown),
    ).toEqual(['USD', '€', 'US$', 'USD', '€', '€', '£']);
    expect(
      [
        '[$$-240A] #,##0.00',
        '_("$"* #,##0.00_)',
        '[$COP] #,##0.00',
        '"COP" #,##0',
        '[$-240A]#,##0.00',
        '#,##0 "und"',
        '0.00 "Kg"',
        '#,##0.00;[Red]-#,##0.00',
        '_-[$$-240A]* #,##0.00_-;-[$$-240A]* #,##0.00_-;_-[$$-240A]* "-"??_-;_-@_-',
        'General',
      ].map(shown),
    ).toEqual(Array(10).fill(undefined));
  });
});
