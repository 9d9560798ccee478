/**
 * Outsider's attack on grouping with key alternatives, through `edoc-bridge submit` on a real project
 * and the emulator over HTTP: what the emulator stored is compared with what the export meant.
 *
 * The shipped POS layout keys a receipt by `prefijo + numero`, else `prefijo + ticket` (the service
 * numbers it). A receipt T-55012 of two lines whose number 101 is written on its first row only:
 *   meant:  one POS document, 2 × 10,000.00 + 19 % = 23,800.00 and 3 × 4,200.00 + 5 % = 13,230.00,
 *           in all 37,030.00;
 *   issued: POS 101 with the first line only (23,800.00) and a second POS document, numbered by the
 *           service, with the second line only (13,230.00).
 * The same with the support-document layout (`prefijo + numero`, else the ERP's `documento`): DS 101
 * ERP-77, whose second row leaves prefijo and numero blank, was issued as two support documents.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli, type ResultJson } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

const root = path.join(import.meta.dirname, '../..');
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
}, 240_000);

function outcomes(result: ResultJson | undefined): unknown[] {
  return (result?.documents ?? []).map((d) => [
    d.source.rows,
    d.status,
    d.errors.map((e) => [e.code, e.field]),
  ]);
}

async function submit(kind: string, mapping: string, name: string, text: string) {
  const made = await resources.daemonProject({
    kinds: { [kind]: { mapping: path.join(root, 'config/mappings', mapping) } },
  });
  const file = path.join(made.project.dir, name);
  await writeFile(file, Buffer.from(text, 'latin1'));
  const run = await made.cli(['submit', file, '--kind', kind], { timeoutMs: 60_000 });
  const result = await made.project.result(kind, name);
  return { made, run, result };
}

describe('one document written under two keys', () => {
  test('a POS receipt whose number is on some of its rows only is refused whole, never issued as two', async () => {
    const header = (await readFile(path.join(root, 'examples/pos.csv'), 'latin1')).split(
      /\r?\n/,
    )[0];
    const text = [
      header,
      'POS;101;T-55012;21/11/2026;14:32:10;CAJA-01;Tienda;Luis;10;1;;;;;;;1;SKU-001;Cafe;2;94;10.000,00;19',
      'POS;;T-55012;21/11/2026;14:32:10;CAJA-01;Tienda;Luis;10;1;;;;;;;2;SKU-014;Arroz;3;94;4.200,00;5',
      // a receipt written alike on its two rows: 1 × 1,000.00 + 19 % = 1,190.00 and again, 2,380.00
      'POS;102;T-55013;21/11/2026;14:40:00;CAJA-01;Tienda;Luis;10;1;;;;;;;1;SKU-001;Cafe;1;94;1.000,00;19',
      'POS;102;T-55013;21/11/2026;14:40:00;CAJA-01;Tienda;Luis;10;1;;;;;;;2;SKU-002;Pan;1;94;1.000,00;19',
      '',
    ].join('\r\n');
    const { made, run, result } = await submit('pos', 'pos.csv.yaml', 'ventas-pos.csv', text);
    expect(run.code).toBe(1);
    expect(outcomes(result)).toEqual([
      [[2], 'invalid', [['EDOC_MAP_INCONSISTENT', 'prefijo + ticket']]],
      [[3], 'invalid', [['EDOC_MAP_INCONSISTENT', 'prefijo + ticket']]],
      [[4, 5], 'accepted', []],
    ]);
    expect(result?.documents[0].errors[0].message).toBe(
      "Row 2 and row 3 carry the same prefijo + ticket (POS, T-55012) but fall under different document keys (a key column filled on some rows of the document only): issued, they would be two documents, each without the other's lines; neither is sent: fill the document's key columns alike on all of its rows",
    );
    const stored = await made.emulator.client.documents({ kind: 'pos', withRequest: true });
    expect(
      stored.map((d) => {
        const r = (
          d.request as {
            content: {
              documento: { cajaVenta: { codigoVenta: string } };
              detalles: unknown[];
              totales: { valorNeto: number };
            };
          }
        ).content;
        return [r.documento.cajaVenta.codigoVenta, r.detalles.length, r.totales.valorNeto];
      }),
    ).toEqual([['T-55013', 2, 2380]]);
  });

  test('a support document numbered on its first row only is refused whole, never issued as two', async () => {
    const lines = (await readFile(path.join(root, 'examples/support-documents.csv'), 'latin1'))
      .split(/\r?\n/)
      .filter((l) => l !== '');
    // DS 101's two rows (20 × 95,000.00 and 1 × 180,000.00 + 19 %), keyed by the ERP's ERP-77 too
    expect(lines[1].startsWith('DS;101;;')).toBe(true);
    expect(lines[2].startsWith('DS;101;;')).toBe(true);
    const text = [
      lines[0],
      lines[1].replace('DS;101;;', 'DS;101;ERP-77;'),
      lines[2].replace('DS;101;;', ';;ERP-77;'),
      '',
    ].join('\r\n');
    const { made, run, result } = await submit(
      'support-document',
      'support-document.csv.yaml',
      'compras.csv',
      text,
    );
    expect(run.code).toBe(1);
    expect(outcomes(result)).toEqual([
      [[2], 'invalid', [['EDOC_MAP_INCONSISTENT', 'documento']]],
      [[3], 'invalid', [['EDOC_MAP_INCONSISTENT', 'documento']]],
    ]);
    expect(await made.emulator.client.documents({ kind: 'support-document' })).toEqual([]);
  });
});
