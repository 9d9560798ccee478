import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/map/load-mapping.js';
import { readAll, tempFile } from './helpers.js';

/** Another ERP: comma-separated, decimal point, ISO dates, names in two columns. A new YAML, no new code. */
const otherErp = compileMapping(
  {
    name: 'other-erp',
    kinds: ['invoice'],
    format: { delimiter: ',', encoding: 'utf-8', decimal: '.', thousands: ',', date: 'yyyy-MM-dd' },
    key: [['Invoice No']],
    lookups: { doc: { NIT: '31', ID: '13' } },
    document: {
      SeriePrefix: { const: 'SETP' },
      SerieNumber: { column: 'Invoice No', as: 'integer', required: true },
      IssueDate: { column: 'Date', as: 'datetime' },
      IssuerParty: {
        Identification: {
          DocumentNumber: { company: 'nit' },
          CheckDigit: { company: 'check-digit' },
        },
      },
      CustomerParty: {
        Name: {
          concat: ['First Name', 'Last Name', { const: '(ERP)' }],
          separator: ' ',
          required: true,
        },
        Identification: {
          DocumentType: { column: 'Doc Type', lookup: 'doc', default: '13' },
          DocumentNumber: { column: 'Doc', as: 'id-number' },
        },
      },
      Notes: [{ $when: 'Note', Text: 'Note' }],
    },
    lines: {
      field: 'Lines',
      fields: {
        Number: { position: true },
        Quantity: { column: 'Qty', as: 'number' },
        UnitPrice: { column: 'Price', as: 'decimal' },
      },
    },
    derive: [{ name: 'sales-totals', inputs: { vat: { column: 'VAT %', as: 'percent' } } }],
  },
  'other-erp.yaml',
);

describe('a layout described only in YAML', () => {
  it('maps a comma-separated export with decimal point, ISO dates, concatenation, defaults and lookups', async () => {
    const text = [
      'Invoice No,Date,First Name,Last Name,Doc Type,Doc,Qty,Price,VAT %,Note',
      '990000401,2026-11-20,Ana,"Pérez, Jr.",,1.020.304,2.5,"1,000.10",19,',
      '990000401,2026-11-20,Ana,"Pérez, Jr.",,1.020.304,1,99.995,,',
    ].join('\n');
    const { docs } = await readAll(await tempFile('o.csv', `${text}\n`), otherErp, 'invoice');
    expect(docs).toHaveLength(1);
    expect(docs[0].problems).toEqual([]);
    expect(docs[0].request).toEqual({
      SeriePrefix: 'SETP',
      SerieNumber: '990000401',
      IssueDate: '2026-11-20T00:00:00',
      IssuerParty: { Identification: { DocumentNumber: '900123456', CheckDigit: '8' } },
      CustomerParty: {
        Name: 'Ana Pérez, Jr. (ERP)',
        Identification: { DocumentType: '13', DocumentNumber: '1020304' },
      },
      Lines: [
        {
          Number: '1',
          Quantity: '2.5',
          UnitPrice: '1000.10',
          GrossAmount: '2500.25',
          NetAmount: '2500.25',
          TaxSubTotals: [
            {
              TaxCategory: '01',
              TaxPercentage: '19.00',
              TaxableAmount: '2500.25',
              TaxAmount: '475.05',
            },
          ],
          TaxTotals: [{ TaxCategory: '01', TaxAmount: '475.05' }],
        },
        {
          Number: '2',
          Quantity: '1',
          UnitPrice: '100.00',
          GrossAmount: '100.00',
          NetAmount: '100.00',
        },
      ],
      TaxSubTotals: [
        {
          TaxCategory: '01',
          TaxPercentage: '19.00',
          TaxableAmount: '2500.25',
          TaxAmount: '475.05',
        },
      ],
      TaxTotals: [{ TaxCategory: '01', TaxAmount: '475.05' }],
      Total: {
        GrossAmount: '2600.25',
        TaxableAmount: '2500.25',
        TotalBillableAmount: '3075.30',
        PayableAmount: '3075.30',
      },
    });
  });
});
