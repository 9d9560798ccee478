/**
 * The sales mapping that looks the buyer up in the `customers` master table by the export's customer id
 * (columns `Tipo identificación`, `Razón social` and, when `email` is given, `Correo`), for the tests of
 * `lookup` on the mapper, the intake worker and the daemon.
 */
export interface CustomersMappingOptions {
  /** The invoices' prefix, also the one `Factura` carries (`FE100`). @defaultValue 'FE' */
  prefix?: string;
  /** How `Fecha` reads. @defaultValue 'date' */
  date?: 'date' | 'datetime';
  /** The `Email` expression; none when absent. */
  email?: string;
}

export function customersMapping(options: CustomersMappingOptions = {}): string {
  const { prefix = 'FE', date = 'date', email } = options;
  const emailLine = email === undefined ? '' : `\n    Email: { expr: "${email}" }`;
  return `
name: sales-with-customers
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: ".", date: dd/MM/yyyy }
key: [Factura]
document:
  SeriePrefix: { const: ${prefix} }
  SerieNumber: { column: Factura, capture: '^${prefix}(?<n>\\d+)$', required: true }
  IssueDate: { column: Fecha, as: ${date}, required: true }
  Currency: { const: COP }
  IssuerParty:
    Identification: { company: identification }
  CustomerParty:
    Identification:
      DocumentType: { expr: 'lookup(customers, Cliente, [Tipo identificación])', required: true }
      DocumentNumber: { column: Cliente, as: id-number, required: true }
      CountryCode: { const: CO }
    Name: { expr: 'lookup(customers, Cliente, [Razón social])', required: true }${emailLine}
lines:
  fields:
    Number: { position: true }
    Quantity: { column: Cantidad, as: number, required: true }
    UnitPrice: { column: Precio, as: decimal, required: true }
    Item:
      Description: { column: Producto, required: true }
derive:
  - name: sales-totals
    inputs:
      vat: { column: IVA, as: percent }
`;
}
