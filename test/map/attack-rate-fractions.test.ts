/**
 * Rates written as fractions of one and read `as: percent`, each a hundredth of the export's, refused
 * naming the column and row; written as percentages they are issued.
 *
 * A support document's withholding rates written as fractions of one (`0,04` for 4 %, `0,15` for 15 %)
 * under the shipped mapping, which reads them `as: percent`: issued as 0.04 % and 0.15 %, a hundredth
 * of the export's withholdings, with nothing to say so. No income withholding is below 0.1 % (fuel) and
 * no VAT withholding below 15 % of the VAT, so such a rate is refused naming its column and row. Through
 * `edoc-bridge submit` on the emulator, with the figures it stored:
 *   1 × 1,000,000.00 + 19 % VAT 190,000.00 = 1,190,000.00 payable
 *   meant:  income 4 % of 1,000,000.00 = 40,000.00; VAT 15 % of 190,000.00 = 28,500.00; total 68,500.00
 *   issued: 0.04 % = 400.00; 0.15 % = 285.00 (a hundredth)
 * An invoice's consumption tax (INC, 04) `0,08` for 8 %, under the shipped sales mapping with a `tax04`
 * column (no INC is below 4 %): 1 × 100,000.00 + INC 8 % 8,000.00 = 108,000.00; issued: 80.00 of INC.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { fileResources } from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';

const root = path.join(import.meta.dirname, '../..');
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
}, 240_000);

const HEADER =
  'prefijo;numero;fecha;proveedor_tipo_doc;proveedor_doc;proveedor_nombre;descripcion;cantidad;precio_unitario;iva;retefuente;reteiva';

function support(numero: string, retefuente: string, reteiva: string): string {
  return `DS;${numero};20/11/2026;CC;79.456.123;Pedro Gómez;Transporte de la cosecha;1;1.000.000,00;19;${retefuente};${reteiva}`;
}

describe('withholding rates written as fractions', () => {
  test('are refused naming the column and row; written as percentages they are issued', async () => {
    const made = await resources.daemonProject({
      kinds: {
        'support-document': {
          mapping: path.join(
            import.meta.dirname,
            '../../config/mappings/support-document.csv.yaml',
          ),
        },
      },
    });
    const file = path.join(made.project.dir, 'soporte.csv');
    const rows = [
      support('901', '0,04', '15'),
      support('902', '4', '0,15'),
      support('903', '4', '15'),
    ];
    await writeFile(file, `${[HEADER, ...rows].join('\r\n')}\r\n`);
    const run = await made.cli(['submit', file, '--kind', 'support-document'], {
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(1);
    const result = await made.project.result('support-document', 'soporte.csv');
    expect(
      result?.documents.map((d) => [d.status, d.errors.map((e) => [e.code, e.field, e.rows])]),
    ).toEqual([
      ['invalid', [['EDOC_MAP_TAX_RATE', 'retefuente', [2]]]],
      ['invalid', [['EDOC_MAP_TAX_RATE', 'reteiva', [3]]]],
      ['accepted', []],
    ]);
    const stored = await made.emulator.client.documents({
      kind: 'support-document',
      withRequest: true,
    });
    expect(
      stored.map((d) => {
        const r = d.request as {
          SerieNumber: string;
          Total: { PayableAmount: string; WithholdingTaxAmount: string };
        };
        return [r.SerieNumber, r.Total.PayableAmount, r.Total.WithholdingTaxAmount];
      }),
    ).toEqual([['903', '1190000.00', '68500.00']]);
  }, 90_000);
});

describe('a consumption tax rate written as a fraction', () => {
  test('is refused naming the column and row; 8 is issued at 108,000.00', async () => {
    const dir = await resources.tempDir('edoc-inc-');
    const shipped = await readFile(path.join(root, 'config/mappings/sales.csv.yaml'), 'utf8');
    const vat = '      vat: { column: iva, as: percent }';
    expect(shipped).toContain(vat);
    const mapping = path.join(dir, 'ventas-inc.csv.yaml');
    await writeFile(
      mapping,
      shipped.replace(vat, `${vat}\n      tax04: { column: inc, as: percent }`),
    );
    const made = await resources.daemonProject({ kinds: { invoice: { mapping } } });
    const file = path.join(made.project.dir, 'restaurante.csv');
    const header =
      'prefijo;numero;fecha;cliente_tipo_doc;cliente_doc;cliente_nombre;descripcion;cantidad;precio_unitario;iva;inc';
    const row = (numero: string, inc: string): string =>
      `SETP;${numero};18/11/2026;31;800197268;Distribuidora Andina S.A.S.;Almuerzo;1;100.000,00;;${inc}`;
    await writeFile(
      file,
      `${[header, row('990000201', '0,08'), row('990000202', '8')].join('\r\n')}\r\n`,
    );
    await made.cli(['submit', file, '--kind', 'invoice'], { timeoutMs: 60_000 });
    const result = await made.project.result('invoice', 'restaurante.csv');
    expect(
      result?.documents.map((d) => [d.status, d.errors.map((e) => [e.code, e.field, e.rows])]),
    ).toEqual([
      ['invalid', [['EDOC_MAP_TAX_RATE', 'inc', [2]]]],
      ['accepted', []],
    ]);
    const stored = await made.emulator.client.documents({ kind: 'invoice', withRequest: true });
    expect(
      stored.map((d) => {
        const r = d.request as { SerieNumber: string; Total: { PayableAmount: string } };
        return [r.SerieNumber, r.Total.PayableAmount];
      }),
    ).toEqual([['990000202', '108000.00']]);
  }, 90_000);
});
