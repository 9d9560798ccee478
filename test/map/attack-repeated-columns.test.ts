/**
 * A header that names a column twice: an ERP that writes the list price and the net price both as
 * `Valor unitario`, or a column added by hand beside the original. Read from whichever comes first, the
 * document would be issued at a price the user never checked; the file is refused naming both positions.
 *   first `Valor unitario` 50.000,00: 2 × 50.000,00 = 100.000,00 + 19 % = 119.000,00
 *   second `Valor unitario` 45.000,00: 2 × 45.000,00 = 90.000,00 + 19 % = 107.100,00
 */
import { describe, expect, it } from 'vitest';
import { mapFile, mappingFrom, requestOf, siigoSalesMapping } from './values-amounts-helpers.js';

const COLUMNS = [
  'Tipo de comprobante',
  'Consecutivo',
  'Fecha de elaboración',
  'Identificación tercero',
  'Nombre tercero',
  'Código producto',
  'Descripción producto',
  'Cantidad producto',
  'Valor unitario',
  'Porcentaje IVA',
];
const ROW = 'FV1;1660;18/11/2026;800197268;Distribuidora Andina S.A.S.;P-001;Silla;2;50.000,00;19';

describe('a column named twice in the header', () => {
  it('refuses the file when the mapping reads it, naming both positions', async () => {
    const csv = `${[...COLUMNS, ' valor  UNITARIO '].join(';')}\r\n${ROW};45.000,00\r\n`;
    const m = await mappingFrom(siigoSalesMapping({ discount: false, reconcile: false }));
    await expect(mapFile(csv, m, 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_REPEATED_COLUMN',
      message: expect.stringMatching(
        /^Column "valor {2}UNITARIO" appears twice in the header of export\.csv \(row 1, columns 9 and 11\)/,
      ) as unknown,
      context: { column: 'valor  UNITARIO', row: 1 },
    });
  });

  it('reads the file when the repeated name is a column the mapping does not read', async () => {
    const csv = `${[...COLUMNS, 'Observaciones', 'Observaciones'].join(';')}\r\n${ROW};a;b\r\n`;
    const m = await mappingFrom(siigoSalesMapping({ discount: false, reconcile: false }));
    const [doc] = await mapFile(csv, m, 'invoice');
    expect(requestOf(doc).Total.PayableAmount).toBe('119000.00');
  });

  it('refuses the file when a row rule or kindCheck reads the repeated column', async () => {
    // `Estado` twice: the payment's state first, the invoice's second. rows.skip read the first
    // (`Pagada`) and issued the cancelled invoice, 2 × 50.000,00 + 19 % = 119.000,00; `Tipo` twice
    // (the line's type, then the document's): kindCheck read `FV` and issued a credit note as an invoice
    const rules =
      'rows:\n  skip: { column: Estado, in: [Anulada] }\n' +
      'kindCheck:\n  - column: Tipo\n    values: { FV: invoice, NC: credit-note }\n';
    const m = await mappingFrom(siigoSalesMapping({ discount: false, reconcile: false }) + rules);
    const skip = `${[...COLUMNS, 'Estado', 'Estado'].join(';')}\r\n${ROW};Pagada;Anulada\r\n`;
    await expect(mapFile(skip, m, 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_REPEATED_COLUMN',
      context: { column: 'Estado', row: 1 },
    });
    const kind = `${[...COLUMNS, 'Tipo', 'Tipo'].join(';')}\r\n${ROW};FV;NC\r\n`;
    await expect(mapFile(kind, m, 'invoice')).rejects.toMatchObject({
      code: 'EDOC_MAP_REPEATED_COLUMN',
      context: { column: 'Tipo', row: 1 },
    });
    const once = `${[...COLUMNS, 'Estado', 'Tipo'].join(';')}\r\n${ROW};Anulada;FV\r\n`;
    expect(await mapFile(once, m, 'invoice')).toEqual([]);
  });
});
