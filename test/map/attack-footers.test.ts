/**
 * Footer totals rows that no `rows.skip` rule drops: their sums are never issued as a line or a document.
 * The export is the shipped sales layout (semicolons, decimal comma, thousands point); every row is 1 × 1.000,00
 * at VAT 19 %, so a document of one line is 1,000.00 + 190.00 = 1,190.00 and of two lines 2,380.00.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { mapping, readAll, sale, tempFile, toCsv } from './helpers.js';

const ROWS = [sale('1', '1'), sale('1', '2'), sale('2', '1')];
const COLUMNS = Object.keys(ROWS[0]);

async function fillDownSales(): Promise<Mapping> {
  const shipped = parse(
    await readFile(join(import.meta.dirname, '../../config/mappings/sales.csv.yaml'), 'utf8'),
  ) as Record<string, unknown>;
  return compileMapping(
    {
      ...shipped,
      framing: { fillDown: ['fecha', 'hora', 'cliente_tipo_doc', 'cliente_doc', 'cliente_nombre'] },
    },
    'sales-fill-down.yaml',
  );
}

async function run(
  m: Mapping,
  footer: Record<string, string>,
): Promise<{ key: string; rows: number[] | undefined; payable?: string; codes: string[] }[]> {
  const { docs } = await readAll(
    await tempFile('ventas.csv', toCsv([...ROWS, footer], { columns: COLUMNS })),
    m,
    'invoice',
  );
  return docs.map((d) => ({
    key: d.key,
    rows: d.source.rows,
    payable: (d.request as { Total?: { PayableAmount?: string } } | undefined)?.Total
      ?.PayableAmount,
    codes: d.problems.map((p) => p.code),
  }));
}

describe('a footer totals row without a skip rule', () => {
  it('with fill-down, a "TOTAL" row is never added to the last invoice as a line', async () => {
    // on main SETP2 was issued at 11,900.00: its 1,190.00 + the footer as a line 3 × 3,000.00 = 9,000.00 + 19 % 1,710.00
    const out = await run(await fillDownSales(), {
      descripcion: 'TOTAL',
      linea: '9',
      cantidad: '3',
      precio_unitario: '3.000,00',
      iva: '19',
    });
    expect(out).toEqual([
      { key: 'SETP1', rows: [2, 3], payable: '2380.00', codes: [] },
      { key: 'SETP2', rows: [4, 5], payable: undefined, codes: ['EDOC_MAP_TOTALS_ROW'] },
    ]);
    const { docs } = await readAll(
      await tempFile(
        'v.csv',
        toCsv(
          [
            ...ROWS,
            {
              descripcion: 'TOTAL',
              linea: '9',
              cantidad: '3',
              precio_unitario: '3.000,00',
              iva: '19',
            },
          ],
          { columns: COLUMNS },
        ),
      ),
      await fillDownSales(),
      'invoice',
    );
    expect(docs[1].problems[0]).toMatchObject({ column: 'descripcion', rows: [5], value: 'TOTAL' });
    expect(docs[1].problems[0].message).toBe(
      'Row 5 reads as a totals row ("TOTAL" in column "descripcion"), not a document line: its sums are never issued; drop it with a rows.skip rule in the mapping (docs/mappings.md "Row roles")',
    );
  });

  it('with fill-down, "Total general" in a key column is never a document of its own', async () => {
    // on main "Total general2" was issued at 10,710.00 under the customer of the row above (3 × 3,000.00 + 19 %)
    const out = await run(await fillDownSales(), {
      prefijo: 'Total general',
      descripcion: 'x',
      cantidad: '3',
      precio_unitario: '3.000,00',
      iva: '19',
    });
    expect(out[2]).toEqual({
      key: 'Total general2',
      rows: [5],
      payable: undefined,
      codes: ['EDOC_MAP_TOTALS_ROW'],
    });
    expect(out.slice(0, 2).map((d) => d.payable)).toEqual(['2380.00', '1190.00']);
  });

  it('without fill-down, "TOTAL" / "Total general" / a label in the key refuse the last document, naming the totals row', async () => {
    const m = await mapping('sales');
    const footers: Record<string, string>[] = [
      { prefijo: 'TOTAL' },
      { prefijo: 'Total general' },
      { descripcion: 'Totales:' },
      { prefijo: 'SETP', numero: 'TOTAL' },
    ];
    for (const footer of footers) {
      const out = await run(m, { ...footer, cantidad: '3', precio_unitario: '3.000,00' });
      expect(out[0]).toEqual({ key: 'SETP1', rows: [2, 3], payable: '2380.00', codes: [] });
      expect(out.flatMap((d) => d.codes)).toContain('EDOC_MAP_TOTALS_ROW');
      // whatever document holds the footer's row 5 is refused; SETP2 alone (row 4) is 1,190.00 when it stands apart
      expect(out.filter((d) => d.rows?.includes(5)).map((d) => d.payable)).toEqual([undefined]);
      expect(
        out
          .filter((d) => !(d.rows?.includes(5) ?? false))
          .every((d) => d.payable === { SETP1: '2380.00', SETP2: '1190.00' }[d.key]),
      ).toBe(true);
    }
  });

  it('a blank-key row holding only sums refuses the document it continues (never issued, never its own)', async () => {
    const out = await run(await mapping('sales'), { cantidad: '3', precio_unitario: '3.000,00' });
    expect(out).toEqual([
      { key: 'SETP1', rows: [2, 3], payable: '2380.00', codes: [] },
      { key: 'SETP2', rows: [4, 5], payable: undefined, codes: ['EDOC_MAP_ROW_WITHOUT_KEY'] },
    ]);
  });

  it('with fill-down, a label-less sums row takes the key but its blank required description refuses the invoice', async () => {
    // the shipped mapping requires the line description: SETP2 is never issued with a 3 × 3,000.00 line
    const out = await run(await fillDownSales(), {
      cantidad: '3',
      precio_unitario: '3.000,00',
      iva: '19',
    });
    expect(out[1]).toEqual({
      key: 'SETP2',
      rows: [4, 5],
      payable: undefined,
      codes: ['EDOC_MAP_REQUIRED'],
    });
  });

  it('a rows.skip rule drops the footer and the invoices go out whole', async () => {
    const shipped = parse(
      await readFile(join(import.meta.dirname, '../../config/mappings/sales.csv.yaml'), 'utf8'),
    ) as Record<string, unknown>;
    const m = compileMapping(
      { ...shipped, rows: { skip: { column: 'descripcion', equals: 'TOTAL' } } },
      'sales-skip.yaml',
    );
    const out = await run(m, { descripcion: 'TOTAL', cantidad: '3', precio_unitario: '3.000,00' });
    expect(out.map((d) => [d.key, d.payable])).toEqual([
      ['SETP1', '2380.00'],
      ['SETP2', '1190.00'],
    ]);
  });

  it('an item whose description merely starts with "Total" is a line like any other', async () => {
    const rows = [
      sale('1', '1', { descripcion: 'Total protección solar' }),
      sale('1', '2', { descripcion: 'Subtotal de servicios varios' }),
    ];
    const { docs } = await readAll(
      await tempFile('v.csv', toCsv(rows)),
      await mapping('sales'),
      'invoice',
    );
    expect(
      docs.map((d) => [
        d.key,
        d.problems,
        (d.request as { Total: { PayableAmount: string } }).Total.PayableAmount,
      ]),
    ).toEqual([['SETP1', [], '2380.00']]);
  });
});
