/**
 * Unit prices written past the cent (`0,125`, as SAP Business One and Siigo write them with four or six
 * decimals). The wire carries a unit price with two decimals and checks NetAmount = Quantity × UnitPrice,
 * so `as: decimal` rounds the price; where that changes quantity × price the line would be issued at a
 * value the export never had, and the document is refused instead. Through the real CSV reader and the
 * shipped sales mapping (decimal ",", thousands "."). Figures by hand.
 */
import { describe, expect, it } from 'vitest';
import { mapping, readAll, sale, tempFile, toCsv } from './helpers.js';
import { mapFile, mappingFrom, siigoSalesMapping } from './values-amounts-helpers.js';

type Invoice = {
  Lines: { Quantity: string; UnitPrice: string; NetAmount: string }[];
  Total: { PayableAmount: string };
};

async function invoices(
  rows: { cantidad: string; precio_unitario: string }[],
): Promise<
  { line?: Invoice['Lines'][number]; payable?: string; codes: string[]; problem?: object }[]
> {
  const { docs } = await readAll(
    await tempFile('precios.csv', toCsv(rows.map((r, i) => sale(String(i + 1), '1', r)))),
    await mapping('sales'),
    'invoice',
  );
  return docs.map((d) => {
    const r = d.request as Invoice | undefined;
    const p = d.problems[0];
    return {
      line: r?.Lines[0],
      payable: r?.Total.PayableAmount,
      codes: d.problems.map((x) => x.code),
      ...(p === undefined ? {} : { problem: { column: p.column, rows: p.rows, value: p.value } }),
    };
  });
}

describe('a unit price past the cent', () => {
  it('is refused where rounding it changes quantity × price, naming the column and row', async () => {
    const [screws, pair, tenths] = await invoices([
      // 1000 × 0.125 = 125.00; rounded 0.13 would issue 1000 × 0.13 = 130.00 (+ 19 %: 154.70, not 148.75)
      { cantidad: '1000', precio_unitario: '0,125' },
      // 2 × 0.125 = 0.25; 2 × 0.13 = 0.26
      { cantidad: '2', precio_unitario: '0,125' },
      // 10 × 12.344 = 123.44; 10 × 12.34 = 123.40
      { cantidad: '10', precio_unitario: '12,344' },
    ]);
    expect(screws).toEqual({
      line: undefined,
      payable: undefined,
      codes: ['EDOC_MAP_PRICE_DECIMALS'],
      problem: { column: 'precio_unitario', rows: [2], value: '0.125' },
    });
    expect(pair.codes).toEqual(['EDOC_MAP_PRICE_DECIMALS']);
    expect(tenths).toMatchObject({
      codes: ['EDOC_MAP_PRICE_DECIMALS'],
      problem: { column: 'precio_unitario', rows: [4], value: '12.344' },
    });
  });

  it('is issued where rounding keeps quantity × price', async () => {
    const [one, zeros, half] = await invoices([
      // 1 × 1.005 = 1.005 -> 1.01 either way; + 19 % 0.19 = 1.20
      { cantidad: '1', precio_unitario: '1,005' },
      // 4 × 2,500.250000 = 10,001.00: the digits past the cent are zeros; + 19 % 1,900.19 = 11,901.19
      { cantidad: '4', precio_unitario: '2.500,250000' },
      // 0.5 × 3.333 = 1.6665 -> 1.67; 0.5 × 3.33 = 1.665 -> 1.67; + 19 % 0.32 = 1.99
      { cantidad: '0,5', precio_unitario: '3,333' },
    ]);
    expect(one).toMatchObject({ line: { UnitPrice: '1.01', NetAmount: '1.01' }, payable: '1.20' });
    expect(zeros).toMatchObject({
      line: { UnitPrice: '2500.25', NetAmount: '10001.00' },
      payable: '11901.19',
    });
    expect(half).toMatchObject({ line: { UnitPrice: '3.33', NetAmount: '1.67' }, payable: '1.99' });
    expect([one, zeros, half].map((d) => d.codes)).toEqual([[], [], []]);
  });

  it('a computed price is told to round its own expression, not to read the cell', async () => {
    // a tax-inclusive price: 10 × 10.000,00 / 1,19 = 10 × 8.403,361344537815 = 84.033,61; × 8.403,36 it
    // would be 84.033,60. "round([Valor unitario], 2)" would issue the price with VAT as the net price
    const yaml = siigoSalesMapping({ discount: false, reconcile: false }).replace(
      'UnitPrice: { column: Valor unitario, as: decimal, required: true }',
      "UnitPrice: { expr: '[Valor unitario] / 1.19', as: decimal, required: true }",
    );
    const [doc] = await mapFile(siigoRow('10', '10.000,00'), await mappingFrom(yaml), 'invoice');
    expect(doc.problems.map((p) => [p.code, p.value])).toEqual([
      ['EDOC_MAP_PRICE_DECIMALS', '8403.361344537815'],
    ]);
    expect(doc.problems[0].message).toMatch(
      /round it in the mapping \(round\(…, 2\) around its expression\)$/,
    );
  });

  it('a quantity read as an amount is refused where it loses decimals', async () => {
    // 2,125 kg × 10.000,00 = 21.250,00; "as: decimal" carried 2.13 kg, issued 21.300,00 + 19 % = 25.347,00
    // kilograms with three decimals, said so in the format (else 2,125 could be 2125 grouped)
    const yaml = siigoSalesMapping({ discount: false, reconcile: false })
      .replace(
        'Quantity: { column: Cantidad producto, as: number, required: true }',
        'Quantity: { column: Cantidad producto, as: decimal, required: true }',
      )
      .replace('thousands: ".",', 'thousands: ".", threeDecimals: [Cantidad producto],');
    const m = await mappingFrom(yaml);
    const [kilos] = await mapFile(siigoRow('2,125', '10.000,00'), m, 'invoice');
    expect(kilos.request).toBeUndefined();
    expect(kilos.problems.map((p) => [p.code, p.column, p.rows, p.value])).toEqual([
      ['EDOC_MAP_PRICE_DECIMALS', 'Cantidad producto', [2], '2.125'],
    ]);
    // 2,5 kg stays 2.50: 25.000,00 + 19 % = 29.750,00
    const [half] = await mapFile(siigoRow('2,5', '10.000,00'), m, 'invoice');
    expect(half.problems).toEqual([]);
    expect((half.request as Invoice).Total.PayableAmount).toBe('29750.00');
  });
});

function siigoRow(quantity: string, price: string): string {
  return (
    'Tipo de comprobante;Consecutivo;Fecha de elaboración;Identificación tercero;Nombre tercero;Código producto;Descripción producto;Cantidad producto;Valor unitario;Porcentaje IVA\r\n' +
    `FV1;1700;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-001;Café;${quantity};${price};19\r\n`
  );
}
