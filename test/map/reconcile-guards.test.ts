/**
 * Amounts the spec can carry and the guards that keep a misread amount from being issued. Each export is
 * written as the ERP writes it: semicolons, decimal comma, thousands point, the totals repeated on every row
 * of a document. Expected figures are computed by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { validateDocument } from '../../src/kinds/validate-document.js';
import { invoiceTotals, supportTotals } from '../../src/validate/totals.js';
import {
  mapFile,
  mappingFrom,
  requestOf,
  SIIGO_COLUMNS,
  siigoSalesMapping,
  SUPPORT_COLUMNS,
  supportMapping,
} from './values-amounts-helpers.js';

/*
 * Imitates Siigo Nube's sales-invoice layout ("Subir facturas de venta desde Excel": Tipo de comprobante,
 * Consecutivo, Identificación tercero, Código producto, Descripción producto, Cantidad producto, Valor unitario,
 * Valor Descuento…), as an export of issued invoices with the invoice's total on every row.
 *   line 1: 2 × 50.000,00 = 100.000,00 − discount 10.000,00 = 90.000,00; VAT 19 % = 17.100,00
 *   line 2: 1 × 30.000,00 =  30.000,00, no discount;            VAT 19 % =  5.700,00
 *   net 120.000,00 + VAT 22.800,00 = total 142.800,00 (the export's "Total factura")
 * Ignoring the discount: 130.000,00 + 24.700,00 = 154.700,00, overstated by 11.900,00.
 */
const DISCOUNTED =
  [
    SIIGO_COLUMNS,
    'FV1;1660;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-001;Silla ergonómica;2;50.000,00;10.000,00;19;142.800,00',
    'FV1;1660;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-002;Lámpara de escritorio;1;30.000,00;;19;142.800,00',
  ].join('\r\n') + '\r\n';

describe('line discounts (an invoice overstated when its discount was ignored)', () => {
  it('maps the discount: GrossAmount before it, NetAmount after it, the totals of the export', async () => {
    const m = await mappingFrom(siigoSalesMapping({ discount: true, reconcile: true }));
    const [doc] = await mapFile(DISCOUNTED, m, 'invoice');
    expect(doc.problems).toEqual([]);
    const r = requestOf(doc);
    expect(r.Lines[0]).toMatchObject({
      Quantity: '2',
      UnitPrice: '45000.00',
      GrossAmount: '100000.00',
      NetAmount: '90000.00',
      TaxSubTotals: [
        {
          TaxCategory: '01',
          TaxPercentage: '19.00',
          TaxableAmount: '90000.00',
          TaxAmount: '17100.00',
        },
      ],
    });
    expect(r.Lines[1]).toMatchObject({
      UnitPrice: '30000.00',
      GrossAmount: '30000.00',
      NetAmount: '30000.00',
    });
    expect(r.Total).toEqual({
      GrossAmount: '120000.00',
      TaxableAmount: '120000.00',
      TotalBillableAmount: '142800.00',
      PayableAmount: '142800.00',
    });
    // the request passes the same totals rules the emulator applies
    expect(invoiceTotals(r)).toEqual([]);
    expect(validateDocument('invoice', r, { today: '2026-11-18', issuerNit: '900123456' })).toEqual(
      [],
    );
  });

  it('refuses the document when the mapping ignores the discount but declares the export total column', async () => {
    const m = await mappingFrom(siigoSalesMapping({ discount: false, reconcile: true }));
    const [doc] = await mapFile(DISCOUNTED, m, 'invoice');
    expect(doc.request).toBeUndefined();
    expect(doc.problems).toHaveLength(1);
    expect(doc.problems[0]).toMatchObject({
      code: 'EDOC_MAP_TOTAL_MISMATCH',
      column: 'Total factura',
      rows: [2, 3],
      value: '142800.00',
    });
    expect(doc.problems[0].message).toContain('142800.00');
    expect(doc.problems[0].message).toContain('154700.00');
    expect(doc.problems[0].message).toContain('11900.00');
  });

  it('a tolerance lets an ERP that rounds otherwise through, and no further', async () => {
    // the export says 142.800,01: one cent off the computed 142.800,00
    const csv = DISCOUNTED.replaceAll('142.800,00', '142.800,01');
    const strict = await mappingFrom(siigoSalesMapping({ discount: true, reconcile: true }));
    expect((await mapFile(csv, strict, 'invoice'))[0].problems.map((p) => p.code)).toEqual([
      'EDOC_MAP_TOTAL_MISMATCH',
    ]);
    const lenient = await mappingFrom(
      siigoSalesMapping({ discount: true, reconcile: true }).replace(
        'reconcile:\n',
        'reconcile:\n  tolerance: 0.01\n',
      ),
    );
    expect((await mapFile(csv, lenient, 'invoice'))[0].problems).toEqual([]);
  });

  it('refuses a discount the wire cannot carry (net not quantity × a whole-cent unit price)', async () => {
    // 3 × 10.000,00 = 30.000,00 − 100,00 = 29.900,00; 29.900,00 / 3 = 9.966,666…: no whole-cent unit price
    const csv = `${SIIGO_COLUMNS}\r\nFV1;1661;18/11/2026;800197268;Cliente;P-1;Caja;3;10.000,00;100,00;19;35.581,00\r\n`;
    const m = await mappingFrom(siigoSalesMapping({ discount: true, reconcile: false }));
    const [doc] = await mapFile(csv, m, 'invoice');
    expect(doc.request).toBeUndefined();
    expect(doc.problems.map((p) => p.code)).toEqual(['EDOC_MAP_DISCOUNT']);
  });
});

describe('several taxes on a line: VAT 01 and the consumption tax 04', () => {
  it('gives each line both entries, subtotals per category and rate, totals per category', async () => {
    // restaurant line: 1 × 100.000,00; VAT 19 % = 19.000,00; consumption tax 8 % = 8.000,00; total 127.000,00
    const csv = `${SIIGO_COLUMNS};Impoconsumo\r\nFV1;1662;18/11/2026;800197268;Cliente;P-9;Almuerzo ejecutivo;1;100.000,00;;19;127.000,00;8\r\n`;
    const m = await mappingFrom(
      siigoSalesMapping({
        discount: true,
        reconcile: true,
        extra: '      tax04: { column: Impoconsumo, as: percent }\n',
      }),
    );
    const [doc] = await mapFile(csv, m, 'invoice');
    expect(doc.problems).toEqual([]);
    const r = requestOf(doc);
    expect(r.Lines[0].TaxSubTotals).toEqual([
      {
        TaxCategory: '01',
        TaxPercentage: '19.00',
        TaxableAmount: '100000.00',
        TaxAmount: '19000.00',
      },
      {
        TaxCategory: '04',
        TaxPercentage: '8.00',
        TaxableAmount: '100000.00',
        TaxAmount: '8000.00',
      },
    ]);
    expect(r.TaxTotals).toEqual([
      { TaxCategory: '01', TaxAmount: '19000.00' },
      { TaxCategory: '04', TaxAmount: '8000.00' },
    ]);
    expect(r.Total).toMatchObject({
      GrossAmount: '100000.00',
      TaxableAmount: '100000.00',
      PayableAmount: '127000.00',
    });
    expect(invoiceTotals(r)).toEqual([]);
  });
});

/*
 * Imitates a World Office / Helisa style purchase-from-non-obligated export used for support documents: one row
 * per purchased item, the withholding (Retención en la fuente) as an AMOUNT per row, its total on every row.
 *   line 1: 1 × 1.200.000,00 = 1.200.000,00, withholding 30.000,00 (= 2,50 % of 1.200.000,00)
 *   line 2: 3 ×    50.000,00 =   150.000,00, withholding  6.000,00 (= 4,00 % of 150.000,00)
 *   no VAT (the supplier is not VAT-responsible): payable 1.350.000,00; withholding 36.000,00, not subtracted
 */
const SUPPORT =
  [
    SUPPORT_COLUMNS,
    'DS;2041;20/11/2026;79456123;Pedro Antonio Gómez;Arriendo bodega noviembre;1;1.200.000,00;30.000,00;36.000,00;1.350.000,00',
    'DS;2041;20/11/2026;79456123;Pedro Antonio Gómez;Servicio de vigilancia (turnos);3;50.000,00;6.000,00;36.000,00;1.350.000,00',
  ].join('\r\n') + '\r\n';

describe('withholdings given as amounts (a support document issued without its withholding)', () => {
  it('maps the withholding amounts to 06 entries with the rate they imply', async () => {
    const [doc] = await mapFile(
      SUPPORT,
      await mappingFrom(supportMapping(true)),
      'support-document',
    );
    expect(doc.problems).toEqual([]);
    const r = requestOf(doc);
    expect(r.Lines[0].WithholdingTaxSubTotals).toEqual([
      {
        TaxCategory: '06',
        TaxPercentage: '2.50',
        TaxableAmount: '1200000.00',
        TaxAmount: '30000.00',
      },
    ]);
    expect(r.Lines[1].WithholdingTaxSubTotals).toEqual([
      {
        TaxCategory: '06',
        TaxPercentage: '4.00',
        TaxableAmount: '150000.00',
        TaxAmount: '6000.00',
      },
    ]);
    expect(r.Total).toEqual({
      TaxableAmount: '0.00',
      TaxAmount: '0.00',
      PayableAmount: '1350000.00',
      WithholdingTaxAmount: '36000.00',
    });
    expect(supportTotals(r)).toEqual([]);
  });

  it('refuses the document when the mapping does not read the withholding but declares its total column', async () => {
    const [doc] = await mapFile(
      SUPPORT,
      await mappingFrom(supportMapping(false)),
      'support-document',
    );
    expect(doc.request).toBeUndefined();
    expect(doc.problems).toHaveLength(1);
    expect(doc.problems[0]).toMatchObject({
      code: 'EDOC_MAP_TOTAL_MISMATCH',
      column: 'Total Retención',
      rows: [2, 3],
    });
    expect(doc.problems[0].message).toMatch(/36000\.00.*0\.00/);
  });

  it('refuses a withholding amount that no two-decimal rate of its base gives', async () => {
    // 1.000,00 of a 300.000,00 base is 0,3333… %: 0,33 % gives 990,00 and 0,34 % gives 1.020,00
    const csv = `${SUPPORT_COLUMNS}\r\nDS;2042;20/11/2026;79456123;Pedro;Flete;1;300.000,00;1.000,00;1.000,00;300.000,00\r\n`;
    const [doc] = await mapFile(csv, await mappingFrom(supportMapping(true)), 'support-document');
    expect(doc.request).toBeUndefined();
    expect(doc.problems.map((p) => p.code)).toEqual(['EDOC_MAP_TOTAL_MISMATCH']);
  });
});

describe('guards on in every mapping', () => {
  const m = () => mappingFrom(siigoSalesMapping({ discount: true, reconcile: false }));
  const row = (n: string, qty: string, price: string, rate: string): string =>
    `FV1;${n};18/11/2026;800197268;Cliente;P-1;Artículo;${qty};${price};;${rate};`;

  it('a VAT rate outside 0, 5, 19 is invalid, naming column and row: 0,19 read as a percentage', async () => {
    const csv = `${SIIGO_COLUMNS}\r\n${row('1', '1', '1.000,00', '19')}\r\n${row('1', '1', '1.000,00', '0,19')}\r\n`;
    const [doc] = await mapFile(csv, await m(), 'invoice');
    expect(doc.request).toBeUndefined();
    expect(doc.problems).toHaveLength(1);
    expect(doc.problems[0]).toMatchObject({
      code: 'EDOC_MAP_VAT_RATE',
      column: 'Porcentaje IVA',
      rows: [3],
    });
    expect(doc.problems[0].message).toContain('as: fraction');
  });

  it('the same export read with as: fraction maps 0,19 to 19 %', async () => {
    const yaml = (await import('./values-amounts-helpers.js'))
      .siigoSalesMapping({ discount: false, reconcile: false })
      .replace(
        'vat: { column: Porcentaje IVA, as: percent }',
        'vat: { column: Porcentaje IVA, as: fraction }',
      );
    // 1 × 1.000,00, VAT 0,19 = 19 % = 190,00; total 1.190,00
    const [doc] = await mapFile(
      `${SIIGO_COLUMNS}\r\n${row('1', '1', '1.000,00', '0,19')}\r\n`,
      await mappingFrom(yaml),
      'invoice',
    );
    expect(requestOf(doc).Total.PayableAmount).toBe('1190.00');
    expect(requestOf(doc).Lines[0].TaxSubTotals[0].TaxPercentage).toBe('19.00');
  });

  it('a negative quantity or price is invalid, naming the column and row', async () => {
    const csv = `${SIIGO_COLUMNS}\r\n${row('2', '-1', '1.000,00', '19')}\r\n${row('3', '1', '-1.000,00', '19')}\r\n`;
    const docs = await mapFile(csv, await m(), 'invoice');
    expect(docs.map((d) => d.problems.map((p) => [p.code, p.column, p.rows]))).toEqual([
      [['EDOC_MAP_NEGATIVE', 'Cantidad producto', [2]]],
      [['EDOC_MAP_NEGATIVE', 'Valor unitario', [3]]],
    ]);
  });

  it('a line worth zero is invalid unless the mapping allows zero lines', async () => {
    const csv = `${SIIGO_COLUMNS}\r\n${row('4', '1', '1.000,00', '19')}\r\n${row('4', '2', '0,00', '19')}\r\n`;
    const [strict] = await mapFile(csv, await m(), 'invoice');
    expect(strict.problems.map((p) => [p.code, p.column, p.rows])).toEqual([
      ['EDOC_MAP_ZERO_LINE', 'Valor unitario', [3]],
    ]);
    const allowing = await mappingFrom(
      siigoSalesMapping({ discount: true, reconcile: false }) + 'guards:\n  zeroLines: allow\n',
    );
    const [allowed] = await mapFile(csv, allowing, 'invoice');
    expect(allowed.problems).toEqual([]);
    // 1.000,00 + VAT 190,00 + 0,00 = 1.190,00
    expect(requestOf(allowed).Total.PayableAmount).toBe('1190.00');
  });

  it('guards.vatRates widens the allowed set', async () => {
    const csv = `${SIIGO_COLUMNS}\r\n${row('5', '1', '1.000,00', '16')}\r\n`;
    expect((await mapFile(csv, await m(), 'invoice'))[0].problems.map((p) => p.code)).toEqual([
      'EDOC_MAP_VAT_RATE',
    ]);
    const wider = await mappingFrom(
      siigoSalesMapping({ discount: true, reconcile: false }) +
        'guards:\n  vatRates: [0, 5, 16, 19]\n',
    );
    expect((await mapFile(csv, wider, 'invoice'))[0].problems).toEqual([]);
  });
});
