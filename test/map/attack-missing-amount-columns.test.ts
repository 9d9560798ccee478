/**
 * A column that carries an amount (a derivation's discount, tax or withholding input, or a column an expression
 * names) and is missing from the file's header: read as blank, it would leave that amount out of an issued
 * document. The file is refused naming the column instead.
 *   line: 2 × 50.000,00 = 100.000,00 − discount 10.000,00 = 90.000,00; VAT 19 % = 17.100,00; total 107.100,00
 *   with the discount column misspelt in the mapping: 100.000,00 + 19.000,00 = 119.000,00 (overstated 11.900,00)
 */
import { describe, expect, it } from 'vitest';
import { mapFile, mappingFrom, requestOf, siigoSalesMapping } from './values-amounts-helpers.js';

const COLUMNS =
  'Tipo de comprobante;Consecutivo;Fecha de elaboración;Identificación tercero;Nombre tercero;Código producto;Descripción producto;Cantidad producto;Valor unitario;Valor Descuento;Porcentaje IVA';
const CSV = `${COLUMNS}\r\nFV1;1660;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-001;Silla ergonómica;2;50.000,00;10.000,00;19\r\n`;

describe('an amount column missing from the header', () => {
  it('maps the discount when the names agree (107,100.00)', async () => {
    const [doc] = await mapFile(
      CSV,
      await mappingFrom(siigoSalesMapping({ discount: true, reconcile: false })),
      'invoice',
    );
    expect(requestOf(doc).Total.PayableAmount).toBe('107100.00');
  });

  it('a derivation input misspelt in the mapping refuses the file, never issues 119,000.00', async () => {
    const yaml = siigoSalesMapping({ discount: true, reconcile: false }).replace(
      'column: Valor Descuento,',
      'column: Valor Descuentos,',
    );
    await expect(mapFile(CSV, await mappingFrom(yaml), 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_MISSING_COLUMN',
      message: expect.stringMatching(
        /^Column "Valor Descuentos" missing from the header of export\.csv/,
      ) as unknown,
    });
  });

  it('a column an expression names refuses the file, never reads coalesce(missing, 0) as no discount', async () => {
    const yaml = siigoSalesMapping({
      discount: false,
      reconcile: false,
      extra: "      discount: { expr: 'coalesce([Valor Descuentos], 0)', as: decimal }\n",
    });
    await expect(mapFile(CSV, await mappingFrom(yaml), 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_MISSING_COLUMN',
    });
    const right = siigoSalesMapping({
      discount: false,
      reconcile: false,
      extra: "      discount: { expr: 'coalesce([Valor Descuento], 0)', as: decimal }\n",
    });
    expect(
      requestOf((await mapFile(CSV, await mappingFrom(right), 'invoice'))[0]).Total.PayableAmount,
    ).toBe('107100.00');
  });

  it('an input with a default may be absent: the default is what the mapping says it means', async () => {
    const yaml = siigoSalesMapping({
      discount: false,
      reconcile: false,
      extra: "      discount: { column: Valor Descuentos, as: decimal, default: '0' }\n",
    });
    // no discount by the mapping's own word: 100.000,00 + 19.000,00 = 119.000,00
    expect(
      requestOf((await mapFile(CSV, await mappingFrom(yaml), 'invoice'))[0]).Total.PayableAmount,
    ).toBe('119000.00');
  });
});
