/**
 * Rows of an export in the shipped sales layout (config/mappings/sales.csv.yaml), and the rows of an
 * errors.csv, for tests that drop CSV invoices and read what the outbox says of them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './daemon-harness.js';

/** The `kinds` section that reads invoices with the shipped sales mapping. */
export const SALES_KINDS = {
  invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') },
};

export const SALES_HEADER =
  'prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;' +
  'cliente_correo;cliente_tipo_persona;medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;precio_unitario;' +
  'iva;motivo;ref_documento;ref_fecha;ref_cufe\r\n';

/** Invoice SETP<number> of one line: one unit at `price` (decimal comma) with `vat` % VAT. */
export function salesRow(number: number, price: string, vat = 19): string {
  return (
    `SETP;${number};20/11/2026;10:00:00;20/12/2026;COP;10;31;800.197.268-4;Distribuidora Andina S.A.S.;` +
    `compras@andina.example;1;42;2;1;770201;Producto 1;1;94;${price};${vat};;;;\r\n`
  );
}

/** The lines of an errors.csv (its header first), without the byte-order mark. */
export async function errorsCsvRows(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n');
}
