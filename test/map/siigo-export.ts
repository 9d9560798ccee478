/**
 * Exports in Siigo Nube's "Subir facturas de venta desde Excel" template (config/mappings/erp/
 * siigo-nube-invoice.yaml), written row by row for the tests.
 */

/** Siigo Nube's template columns, in order. */
export const SIIGO_COLUMNS = [
  'Tipo de comprobante',
  'Consecutivo',
  'Identificación tercero',
  'Sucursal',
  'Código centro/subcentro de costos',
  'Fecha de elaboración',
  'Sigla Moneda',
  'Tasa de cambio',
  'Nombre contacto',
  'Email Contacto',
  'Orden de Compra',
  'Orden de entrega',
  'Fecha Orden',
  'Código producto',
  'Descripción producto',
  'Identificación vendedor',
  'Código de Bodega',
  'Cantidad producto',
  'Valor unitario',
  'Valor Descuento',
  'Base AIU',
  'Código impuesto cargo',
  'Código impuesto cargo dos',
  'Código impuesto retención',
  'Código ReteICA',
  'Código ReteIVA',
  'Código forma de pago',
  'Valor Forma de Pago',
  'Fecha Vencimiento',
  'Observaciones',
];

/**
 * One invoice as Siigo Nube's template holds it: one product row per [quantity, unit price] (VAT code 3,
 * 0 %), then the payment row stating `paid`.
 */
export function siigoInvoice(number: string, lines: [string, string][], paid: string): string[][] {
  const row = (cells: Record<string, string>): string[] =>
    SIIGO_COLUMNS.map(
      (c) =>
        cells[c] ??
        { 'Tipo de comprobante': '1', Consecutivo: number, 'Fecha de elaboración': '18/11/2026' }[
          c
        ] ??
        (c === 'Identificación tercero' ? '800197268' : ''),
    );
  return [
    ...lines.map(([quantity, price], i) =>
      row({
        'Código producto': `P-00${i + 1}`,
        'Descripción producto': `Producto ${i + 1}`,
        'Cantidad producto': quantity,
        'Valor unitario': price,
        'Código impuesto cargo': '3',
      }),
    ),
    row({ 'Código forma de pago': '1', 'Valor Forma de Pago': paid }),
  ];
}

export function siigoCsv(invoices: string[][][]): string {
  return [SIIGO_COLUMNS, ...invoices.flat()].map((r) => r.join(';') + '\r\n').join('');
}
