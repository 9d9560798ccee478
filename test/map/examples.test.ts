import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CsvSourceDocument } from '../../src/read/csv-source.js';
import {
  invoiceRequestSchema,
  payrollRequestSchema,
  supportDocumentRequestSchema,
} from '../../src/service/schemas/index.js';
import type { DocumentKind } from '../../src/kinds/index.js';
import { validateDocument } from '../../src/kinds/validate-document.js';
import { COMPANY, EXAMPLES, mapping, readAll } from './helpers.js';

type Req = Record<string, unknown>;

async function example(
  file: string,
  name: 'sales' | 'support-document' | 'payroll',
  kind: DocumentKind,
): Promise<CsvSourceDocument[]> {
  const { source, docs } = await readAll(join(EXAMPLES, file), await mapping(name), kind);
  expect(source.encoding).toBe('windows-1252');
  expect(source.delimiter).toBe(';');
  for (const d of docs) {
    expect(d.problems).toEqual([]);
    expect(
      validateDocument(kind, d.request, { today: '2026-11-22', issuerNit: COMPANY.nit }),
    ).toEqual([]);
  }
  return docs;
}

const vat = (rate: string, base: string, tax: string): Req => ({
  TaxCategory: '01',
  TaxPercentage: rate,
  TaxableAmount: base,
  TaxAmount: tax,
});

describe('the shipped examples map to exact requests', () => {
  it('invoices.csv: three invoices, interleaved rows, taxed, exempt and excluded lines', async () => {
    const docs = await example('invoices.csv', 'sales', 'invoice');
    expect(docs.map((d) => [d.key, d.source.rows])).toEqual([
      ['SETP990000101', [2, 3, 5, 6]],
      ['SETP990000102', [4, 7]],
      ['SETP990000103', [8, 9]],
    ]);
    for (const d of docs) expect(invoiceRequestSchema.safeParse(d.request).success).toBe(true);
    const line = (
      n: string,
      qty: string,
      price: string,
      net: string,
      gtin: string | undefined,
      description: string,
      tax?: Req,
    ): Req => ({
      Number: n,
      Quantity: qty,
      QuantityUnitOfMeasure: '94',
      UnitPrice: price,
      Item:
        gtin === undefined
          ? { Description: description }
          : { Gtin: gtin, Description: description },
      GrossAmount: net,
      NetAmount: net,
      ...(tax === undefined
        ? {}
        : { TaxSubTotals: [tax], TaxTotals: [{ TaxCategory: '01', TaxAmount: tax.TaxAmount }] }),
    });
    expect(docs[0].request).toEqual({
      Currency: 'COP',
      SeriePrefix: 'SETP',
      SerieNumber: '990000101',
      IssueDate: '2026-11-18T09:15:00',
      DueDate: '2026-12-18T00:00:00',
      OperationType: '10',
      IssuerParty: {
        Identification: {
          DocumentNumber: '900123456',
          DocumentType: '31',
          CountryCode: 'CO',
          CheckDigit: '8',
        },
      },
      CustomerParty: {
        LegalType: '1',
        Email: 'compras@andina.example',
        Identification: { DocumentNumber: '800197268', DocumentType: '31', CountryCode: 'CO' },
        Name: 'Distribuidora Andina S.A.S.',
      },
      PaymentMeans: [{ Code: '42', Mean: '2', DueDate: '2026-12-18' }],
      Lines: [
        line(
          '1',
          '10',
          '12500.00',
          '125000.00',
          '7702001',
          'Café molido premium 500 g',
          vat('19.00', '125000.00', '23750.00'),
        ),
        line(
          '2',
          '4',
          '21900.00',
          '87600.00',
          '7702002',
          'Arroz blanco 5 kg; bulto x 4',
          vat('5.00', '87600.00', '4380.00'),
        ),
        line(
          '3',
          '2',
          '45000.00',
          '90000.00',
          '9789580000',
          'Libro escolar Matemáticas 5°',
          vat('0.00', '90000.00', '0.00'),
        ),
        line(
          '4',
          '1',
          '1234567.50',
          '1234567.50',
          undefined,
          'Servicio de transporte\r\nBogotá – Medellín',
        ),
      ],
      TaxSubTotals: [
        vat('19.00', '125000.00', '23750.00'),
        vat('5.00', '87600.00', '4380.00'),
        vat('0.00', '90000.00', '0.00'),
      ],
      TaxTotals: [{ TaxCategory: '01', TaxAmount: '28130.00' }],
      Total: {
        GrossAmount: '1537167.50',
        TaxableAmount: '302600.00',
        TotalBillableAmount: '1565297.50',
        PayableAmount: '1565297.50',
      },
    });
    const second = docs[1].request as Req;
    expect(second.CustomerParty).toEqual({
      LegalType: '2',
      Email: 'jose.munoz@correo.example',
      Name: 'José Muñoz Peña',
      Identification: { DocumentNumber: '1020304050', DocumentType: '13', CountryCode: 'CO' },
    });
    expect(second.Lines).toEqual([
      line(
        '1',
        '3',
        '3333.33',
        '9999.99',
        undefined,
        'Cuaderno "Norma" 100 hojas',
        vat('19.00', '9999.99', '1900.00'),
      ),
      line(
        '2',
        '1.5',
        '10000.00',
        '15000.00',
        undefined,
        'Resma papel carta',
        vat('19.00', '15000.00', '2850.00'),
      ),
    ]);
    expect(second.TaxSubTotals).toEqual([vat('19.00', '24999.99', '4750.00')]);
    expect(second.Total).toEqual({
      GrossAmount: '24999.99',
      TaxableAmount: '24999.99',
      TotalBillableAmount: '29749.99',
      PayableAmount: '29749.99',
    });
    const third = docs[2].request as Req;
    expect(third.IssueDate).toBe('2026-11-20T00:00:00');
    expect(third.TaxSubTotals).toEqual([]);
    expect(third.Total).toEqual({
      GrossAmount: '2850000.00',
      TaxableAmount: '0.00',
      TotalBillableAmount: '2850000.00',
      PayableAmount: '2850000.00',
    });
  });

  it('credit-notes.csv: a credit note with ReasonCredit referencing invoice SETP990000101', async () => {
    const [note] = await example('credit-notes.csv', 'sales', 'credit-note');
    const req = note.request as Req;
    expect(req.ReasonCredit).toBe('Devolución parcial de mercancía');
    expect(req.ReasonDebit).toBeUndefined();
    expect(req.DocumentReferences).toEqual([
      { DocumentReferred: 'SETP990000101', IssueDate: '2026-11-18' },
    ]);
    expect(req.TaxSubTotals).toEqual([
      vat('19.00', '25000.00', '4750.00'),
      vat('0.00', '45000.00', '0.00'),
    ]);
    expect(req.Total).toEqual({
      GrossAmount: '70000.00',
      TaxableAmount: '70000.00',
      TotalBillableAmount: '74750.00',
      PayableAmount: '74750.00',
    });
  });

  it('debit-notes.csv: a debit note with ReasonDebit', async () => {
    const [note] = await example('debit-notes.csv', 'sales', 'debit-note');
    const req = note.request as Req;
    expect(req.ReasonDebit).toBe('Intereses por pago tardío');
    expect(req.ReasonCredit).toBeUndefined();
    expect(req.DocumentReferences).toEqual([
      { DocumentReferred: 'SETP990000102', IssueDate: '2026-11-19' },
    ]);
    // 1250.50 × 19% = 237.595 -> 237.60 (half-up); 8000.00 excluded.
    expect(req.Total).toEqual({
      GrossAmount: '9250.50',
      TaxableAmount: '1250.50',
      TotalBillableAmount: '9488.10',
      PayableAmount: '9488.10',
    });
  });

  it('support-documents.csv: withholdings 06 on the base and 05 on the VAT, not subtracted from the payable amount', async () => {
    const docs = await example('support-documents.csv', 'support-document', 'support-document');
    expect(docs.map((d) => [d.key, d.source.rows])).toEqual([
      ['DS101', [2, 3]],
      ['ERP-CXP-5521', [4, 5]],
    ]);
    for (const d of docs)
      expect(supportDocumentRequestSchema.safeParse(d.request).success).toBe(true);
    const first = docs[0].request as Req & { Lines: Req[] };
    expect(first.SeriePrefix).toBe('DS');
    expect(first.Lines[0].TaxSubTotals).toBeUndefined();
    expect(first.Lines[0].WithholdingTaxSubTotals).toEqual([
      {
        TaxCategory: '06',
        TaxPercentage: '1.50',
        TaxableAmount: '1900000.00',
        TaxAmount: '28500.00',
      },
    ]);
    expect(first.Lines[1].WithholdingTaxSubTotals).toEqual([
      {
        TaxCategory: '06',
        TaxPercentage: '4.00',
        TaxableAmount: '180000.00',
        TaxAmount: '7200.00',
      },
      {
        TaxCategory: '05',
        TaxPercentage: '15.00',
        TaxableAmount: '34200.00',
        TaxAmount: '5130.00',
      },
    ]);
    expect(first.TaxTotals).toEqual([{ TaxCategory: '01', TaxAmount: '34200.00' }]);
    expect(first.Total).toEqual({
      TaxableAmount: '180000.00',
      TaxAmount: '34200.00',
      PayableAmount: '2114200.00',
      WithholdingTaxAmount: '40830.00',
    });
    const second = docs[1].request as Req;
    expect(second.SeriePrefix).toBeUndefined();
    expect(second.SerieNumber).toBeUndefined();
    expect(second.SupplierParty).toEqual({
      LegalType: '2',
      Identification: { DocumentNumber: '52987654', DocumentType: '13', CountryCode: 'CO' },
      Name: 'María Fernanda Ríos',
      Address: {
        DepartmentCode: '11',
        CityCode: '11001',
        AddressLine: 'Cra. 7 # 45-10, apto 301',
        Country: 'CO',
      },
    });
    expect(second.Total).toEqual({
      TaxableAmount: '3820000.00',
      TaxAmount: '532000.00',
      PayableAmount: '4352000.00',
      WithholdingTaxAmount: '500000.00',
    });
  });

  it('payroll.csv: DevengadosTotal, DeduccionesTotal and ComprobanteTotal', async () => {
    const docs = await example('payroll.csv', 'payroll', 'payroll');
    expect(docs.map((d) => [d.key, d.source.rows])).toEqual([
      ['NOM101', [2]],
      ['NOM102', [3]],
    ]);
    for (const d of docs) expect(payrollRequestSchema.safeParse(d.request).success).toBe(true);
    const ana = docs[0].request as Req;
    expect(ana.Devengados).toEqual({
      Basico: { DiasTrabajados: '30', SueldoTrabajado: '2000000.00' },
      Transporte: [{ AuxilioTransporte: '200000.00' }],
      HEDs: [{ Cantidad: '4', Porcentaje: '25.00', Pago: '41666.67' }],
      Bonificaciones: [{ BonificacionNS: '100000.00' }],
    });
    expect(ana.Deducciones).toEqual({
      Salud: { Porcentaje: '4', Deduccion: '80000.00' },
      FondoPension: { Porcentaje: '4', Deduccion: '80000.00' },
    });
    expect([ana.DevengadosTotal, ana.DeduccionesTotal, ana.ComprobanteTotal]).toEqual([
      '2341666.67',
      '160000.00',
      '2181666.67',
    ]);
    expect(ana.Empleador).toEqual({ NIT: '900123456' });
    expect(ana.NumeroSecuenciaXML).toEqual({ Prefijo: 'NOM', Consecutivo: '101' });
    const carlos = docs[1].request as Req;
    expect([carlos.DevengadosTotal, carlos.DeduccionesTotal, carlos.ComprobanteTotal]).toEqual([
      '6850000.00',
      '960350.00',
      '5889650.00',
    ]);
  });
});
