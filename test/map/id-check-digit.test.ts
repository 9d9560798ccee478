/**
 * `as: id-number` drops the `-DV` an export writes after a NIT; the digit is then the only witness of a
 * mistyped number. NIT 800197268 has check digit 4 (modulo 11: 8·41 + 0·37 + 0·29 + 1·23 + 9·19 +
 * 7·17 + 2·13 + 6·7 + 8·3 = 733, 733 mod 11 = 7, 11 − 7 = 4); the transposed 800197286 has 7.
 */
import { describe, expect, it } from 'vitest';
import { validateDocument } from '../../src/kinds/validate-document.js';
import { mapFile, mappingFrom, requestOf } from './values-amounts-helpers.js';

const MAPPING = `
name: customers-with-check-digit
kinds: [invoice]
format: { delimiter: ";", decimal: ",", thousands: ".", date: dd/MM/yyyy }
key: [Factura]
document:
  SeriePrefix: { const: FE }
  SerieNumber: { column: Factura, required: true }
  IssueDate: { column: Fecha, as: datetime, required: true }
  OperationType: { const: "10" }
  Currency: { const: COP }
  IssuerParty:
    Identification: { company: identification }
  CustomerParty:
    Identification:
      DocumentNumber: { column: NIT cliente, as: id-number, required: true }
      DocumentType: { const: "31" }
      CountryCode: { const: CO }
    Name: { const: Cliente }
lines:
  fields:
    Number: { position: true }
    Quantity: { column: Cantidad, as: number, required: true }
    UnitPrice: { column: Precio, as: decimal, required: true }
    Item:
      Description: { const: Tornillos }
derive:
  - name: sales-totals
    inputs:
      vat: { column: IVA, as: percent }
`;

describe('a check digit written after the id', () => {
  it('is checked against the number: a mistyped number or digit is refused naming the cell, never issued', async () => {
    const csv = [
      'Factura;Fecha;NIT cliente;Cantidad;Precio;IVA',
      '1;18/11/2026;800.197.268-4;2;10.000,00;19',
      '2;18/11/2026;800.197.286-4;2;10.000,00;19',
      '3;18/11/2026;800197268 - 5;2;10.000,00;19',
      '4;18/11/2026;800197268;2;10.000,00;19',
    ].join('\r\n');
    const docs = await mapFile(`${csv}\r\n`, await mappingFrom(MAPPING), 'invoice');
    // 2 × 10,000.00 = 20,000.00 + 19 % 3,800.00 = 23,800.00
    expect(requestOf(docs[0]).CustomerParty.Identification.DocumentNumber).toBe('800197268');
    expect(requestOf(docs[0]).Total.PayableAmount).toBe('23800.00');
    expect(requestOf(docs[3]).CustomerParty.Identification.DocumentNumber).toBe('800197268');
    expect(
      docs.slice(1, 3).map((d) => [d.request, d.problems.map((p) => [p.code, p.column, p.rows])]),
    ).toEqual([
      [undefined, [['EDOC_VALIDATE_CHECK_DIGIT', 'NIT cliente', [3]]]],
      [undefined, [['EDOC_VALIDATE_CHECK_DIGIT', 'NIT cliente', [4]]]],
    ]);
    expect(docs[1].problems[0].message).toBe(
      '"800.197.286-4" in column "NIT cliente" ends in the check digit 4, but the check digit of 800197286 is 7: the number or the digit is mistyped, and the document is not issued to either; correct it in the export',
    );
  });

  it('an id that is not all digits (a passport) keeps its dash-digit unchecked', async () => {
    const csv = [
      'Factura;Fecha;NIT cliente;Cantidad;Precio;IVA',
      '1;18/11/2026;AB123-4;1;1.000,00;19',
    ];
    const [doc] = await mapFile(`${csv.join('\r\n')}\r\n`, await mappingFrom(MAPPING), 'invoice');
    expect(requestOf(doc).CustomerParty.Identification.DocumentNumber).toBe('AB123');
  });

  it('a NIT cell with a label or an exponent (NIT 800197268, 9.00123e8) is refused, never issued as that text', async () => {
    const csv = [
      'Factura;Fecha;NIT cliente;Cantidad;Precio;IVA',
      '1;18/11/2026;NIT 800197268;1;1.000,00;19',
      '2;18/11/2026;9.00123e8;1;1.000,00;19',
    ];
    const docs = await mapFile(`${csv.join('\r\n')}\r\n`, await mappingFrom(MAPPING), 'invoice');
    const checked = docs.map((d) =>
      validateDocument('invoice', d.request, { today: '2026-11-18', issuerNit: '900123456' }).map(
        (p) => [p.code, p.path, p.message.slice(0, 30)],
      ),
    );
    expect(checked).toEqual([
      [
        [
          'EDOC_VALIDATE_NIT',
          'CustomerParty.Identification.DocumentNumber',
          'NIT "NIT800197268" (DocumentTy',
        ],
      ],
      [
        [
          'EDOC_VALIDATE_NIT',
          'CustomerParty.Identification.DocumentNumber',
          'NIT "900123e8" (DocumentType 3',
        ],
      ],
    ]);
  });
});
