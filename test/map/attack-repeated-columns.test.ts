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
});
