/** Shared pieces of the value, amount and guard tests: a mapping written to a temp file, and a run of the real CSV reader. */
import { parse } from 'yaml';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { DocumentKind } from '../../src/kinds/index.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { readAll, tempFile } from './helpers.js';
import type { CsvSourceDocument } from '../../src/read/csv-source.js';

export async function mappingFrom(yaml: string): Promise<Mapping> {
  parse(yaml); // a YAML slip in the test itself fails here, not as a mapping error
  return loadMapping(await tempFile('mapping.csv.yaml', yaml));
}

export async function mapFile(
  csv: string,
  m: Mapping,
  kind: DocumentKind,
  encoding: 'utf-8' | 'windows-1252' = 'utf-8',
): Promise<CsvSourceDocument[]> {
  const file = await tempFile('export.csv', csv, encoding);
  return (await readAll(file, m, kind)).docs;
}

/** A Siigo-style sales mapping: the columns of Siigo Nube's "Subir facturas de venta desde Excel" template. */
export function siigoSalesMapping(options: {
  discount: boolean;
  reconcile: boolean;
  extra?: string;
}): string {
  return `
name: siigo-sales-export
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: ".", date: dd/MM/yyyy }
key: [Tipo de comprobante, Consecutivo]
document:
  SeriePrefix: { column: Tipo de comprobante, required: true }
  SerieNumber: { column: Consecutivo, required: true }
  IssueDate: { column: Fecha de elaboración, as: datetime, required: true }
  Currency: { const: COP }
  IssuerParty:
    Identification: { company: identification }
  CustomerParty:
    Identification:
      DocumentNumber: { column: Identificación tercero, as: id-number, required: true }
      DocumentType: { const: "31" }
      CountryCode: { const: CO }
    Name: { column: Nombre tercero, required: true }
lines:
  fields:
    Number: { position: true }
    Quantity: { column: Cantidad producto, as: number, required: true }
    UnitPrice: { column: Valor unitario, as: decimal, required: true }
    Item:
      Gtin: Código producto
      Description: { column: Descripción producto, required: true }
derive:
  - name: sales-totals
    inputs:
      vat: { column: Porcentaje IVA, as: percent }
${options.discount ? '      discount: { column: Valor Descuento, as: decimal }\n' : ''}${options.extra ?? ''}${options.reconcile ? 'reconcile:\n  document:\n    total: Total factura\n' : ''}`;
}

export const SIIGO_COLUMNS =
  'Tipo de comprobante;Consecutivo;Fecha de elaboración;Identificación tercero;Nombre tercero;Código producto;Descripción producto;Cantidad producto;Valor unitario;Valor Descuento;Porcentaje IVA;Total factura';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read deep into requests of several shapes
export function requestOf(doc: CsvSourceDocument): Record<string, any> {
  if (doc.request === undefined) throw new Error(`no request: ${JSON.stringify(doc.problems)}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  return doc.request as Record<string, any>;
}

/** A support-document mapping for a purchases export with the withholding as an amount per row (World Office / Helisa style). */
export const SUPPORT_COLUMNS =
  'Prefijo;Número;Fecha;Nit Tercero;Nombre Tercero;Producto;Cantidad;Valor Unitario;Valor Retefuente;Total Retención;Total a Pagar';

export function supportMapping(withholding: boolean): string {
  return `
name: support-from-purchases
kinds: [support-document]
format: { delimiter: ";", decimal: ",", thousands: ".", date: dd/MM/yyyy }
key: [Prefijo, Número]
document:
  SeriePrefix: Prefijo
  SerieNumber: Número
  IssueDate: { column: Fecha, as: datetime, required: true }
  SupplierParty:
    Identification:
      DocumentNumber: { column: Nit Tercero, as: id-number, required: true }
      DocumentType: { const: "13" }
      CountryCode: { const: CO }
    Name: { column: Nombre Tercero, required: true }
lines:
  fields:
    Number: { position: true }
    Quantity: { column: Cantidad, as: number, required: true }
    QuantityUnitOfMeasure: { const: "94" }
    UnitPrice: { column: Valor Unitario, as: decimal, required: true }
    Item:
      Description: { column: Producto, required: true }
derive:
  - name: support-totals
${withholding ? '    inputs:\n      incomeWithholdingAmount: { column: Valor Retefuente, as: decimal }\n' : ''}reconcile:
  document:
    total: Total a Pagar
    withholding: Total Retención
`;
}
