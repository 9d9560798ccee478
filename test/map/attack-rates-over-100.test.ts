/**
 * A rate read `as: fraction` from a cell the export writes as a percentage (`8` for 8 %, as the CSV of a
 * percent-formatted column or an ERP that changed its layout writes it) becomes 800 %. VAT rates have
 * their allowed set; a consumption tax or a withholding had none, and was issued:
 *   INC `8` as a fraction: 1 × 100.000,00 + 19 % 19.000,00 + INC 800 % 800.000,00 = 919.000,00
 *     (meant: 100.000,00 + 19.000,00 + 8.000,00 = 127.000,00)
 *   ReteFuente `4` and ReteIVA `15` as fractions on 180.000,00 with VAT 34.200,00: withheld 720.000,00 +
 *     513.000,00 = 1.233.000,00 (meant: 7.200,00 + 5.130,00 = 12.330,00)
 * Each is refused naming the column and row; the same cells read `as: percent` are issued.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapFile, mappingFrom, requestOf, siigoSalesMapping } from './values-amounts-helpers.js';

const SALES =
  'Tipo de comprobante;Consecutivo;Fecha de elaboración;Identificación tercero;Nombre tercero;Código producto;Descripción producto;Cantidad producto;Valor unitario;Porcentaje IVA;INC\r\n' +
  'FV1;1661;18/11/2026;800197268;Restaurante Andino S.A.S.;P-010;Almuerzo;1;100.000,00;19;8\r\n';

async function supportMapping(as: 'percent' | 'fraction'): Promise<string> {
  const shipped = await readFile(
    path.join(import.meta.dirname, '../../config/mappings/support-document.csv.yaml'),
    'utf8',
  );
  return shipped
    .replace('{ column: retefuente, as: percent }', `{ column: retefuente, as: ${as} }`)
    .replace('{ column: reteiva, as: percent }', `{ column: reteiva, as: ${as} }`);
}

const SUPPORT =
  'prefijo;numero;documento;fecha;hora;proveedor_tipo_doc;proveedor_doc;proveedor_nombre;linea;descripcion;cantidad;precio_unitario;iva;retefuente;reteiva\r\n' +
  'DS;201;;20/11/2026;08:30:00;CC;79456123;Pedro Gómez;1;Transporte de la cosecha;1;180.000,00;19;4;15\r\n';

describe('a tax or withholding rate above 100 %', () => {
  it('a consumption tax read as a fraction (800 %) is refused, naming the column and row', async () => {
    const yaml = (as: string): string =>
      siigoSalesMapping({
        discount: false,
        reconcile: false,
        extra: `      tax04: { column: INC, as: ${as} }\n`,
      });
    const [wrong] = await mapFile(SALES, await mappingFrom(yaml('fraction')), 'invoice');
    expect(wrong.request).toBeUndefined();
    expect(wrong.problems.map((p) => [p.code, p.column, p.rows, p.value])).toEqual([
      ['EDOC_MAP_TAX_RATE', 'INC', [2], '800.00'],
    ]);
    const [right] = await mapFile(SALES, await mappingFrom(yaml('percent')), 'invoice');
    expect(requestOf(right).Total.PayableAmount).toBe('127000.00');
  });

  it('withholdings read as fractions (400 %, 1500 %) are refused, naming each column', async () => {
    const [wrong] = await mapFile(
      SUPPORT,
      await mappingFrom(await supportMapping('fraction')),
      'support-document',
    );
    expect(wrong.request).toBeUndefined();
    expect(wrong.problems.map((p) => [p.code, p.column, p.rows, p.value])).toEqual([
      ['EDOC_MAP_TAX_RATE', 'retefuente', [2], '400.00'],
      ['EDOC_MAP_TAX_RATE', 'reteiva', [2], '1500.00'],
    ]);
    const [right] = await mapFile(
      SUPPORT,
      await mappingFrom(await supportMapping('percent')),
      'support-document',
    );
    expect(requestOf(right).Total).toMatchObject({
      PayableAmount: '214200.00',
      WithholdingTaxAmount: '12330.00',
    });
  });

  it('an income withholding at exactly 100 % is refused; a VAT withholding at 100 % is issued', async () => {
    // ReteFuente `1` (1 %) read as a fraction is 100 %: all 180.000,00 withheld (meant 1.800,00). ReteIVA
    // at 100 % is real (a non-resident's service): `1` as a fraction withholds the whole VAT 34.200,00
    const ones = SUPPORT.replace(';19;4;15\r\n', ';19;1;1\r\n');
    const [wrong] = await mapFile(
      ones,
      await mappingFrom(await supportMapping('fraction')),
      'support-document',
    );
    expect(wrong.problems.map((p) => [p.code, p.column, p.rows, p.value])).toEqual([
      ['EDOC_MAP_TAX_RATE', 'retefuente', [2], '100.00'],
    ]);
    const percentIncome = (await supportMapping('fraction')).replace(
      '{ column: retefuente, as: fraction }',
      '{ column: retefuente, as: percent }',
    );
    const [right] = await mapFile(ones, await mappingFrom(percentIncome), 'support-document');
    // 180.000,00 + VAT 34.200,00 = 214.200,00; withheld 1.800,00 + 34.200,00 = 36.000,00
    expect(requestOf(right).Total).toMatchObject({
      PayableAmount: '214200.00',
      WithholdingTaxAmount: '36000.00',
    });
  });
});
