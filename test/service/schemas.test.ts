import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import {
  adjustmentNoteRequestSchema,
  e1DocumentType,
  formatZodIssues,
  invoiceRequestSchema,
  supportDocumentRequestSchema,
} from '../../src/service/schemas/index.js';
import { loadRequestFixture } from '../fixtures/requests/index.js';

/** Formatted issue paths of a parse, [] when it succeeds. */
function issuePaths(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : formatZodIssues(result.error).map((i) => i.path);
}

type Json = Record<string, unknown>;
const at = (value: unknown, ...path: (string | number)[]): Json => {
  let node = value;
  for (const key of path) node = (node as Record<string | number, unknown>)[key];
  return node as Json;
};

describe('E1 invoice, credit note and debit note request', () => {
  test.each(['invoice', 'credit-note', 'debit-note'] as const)(
    'the %s fixture matches the E1 schema',
    (name) => {
      const request = loadRequestFixture(name);
      expect(invoiceRequestSchema.parse(request)).toEqual(request);
    },
  );

  test('the document type is inferred from ReasonCredit, then ReasonDebit', () => {
    expect(e1DocumentType(invoiceRequestSchema.parse(loadRequestFixture('invoice')))).toBe(
      'invoice',
    );
    expect(e1DocumentType(invoiceRequestSchema.parse(loadRequestFixture('credit-note')))).toBe(
      'credit-note',
    );
    expect(e1DocumentType(invoiceRequestSchema.parse(loadRequestFixture('debit-note')))).toBe(
      'debit-note',
    );
    expect(e1DocumentType({ ReasonCredit: 'x', ReasonDebit: 'y' })).toBe('credit-note');
    expect(e1DocumentType({ ReasonCredit: '', ReasonDebit: 'y' })).toBe('debit-note');
    expect(e1DocumentType({ ReasonCredit: ' ', ReasonDebit: '' })).toBe('invoice');
  });

  test('required fields are not shown by the spec, so an empty body passes the schema', () => {
    expect(issuePaths(invoiceRequestSchema, {})).toEqual([]);
  });

  test('a typo in a field name is reported at its path', () => {
    const request = loadRequestFixture('invoice');
    request.SeriePrefx = request.SeriePrefix;
    expect(issuePaths(invoiceRequestSchema, request)).toEqual(['SeriePrefx']);
    const nested = loadRequestFixture('invoice');
    at(nested, 'Lines', 1, 'Item').Descripcion = 'x';
    expect(issuePaths(invoiceRequestSchema, nested)).toEqual(['Lines[1].Item.Descripcion']);
  });

  test('an amount without two decimals is reported at its path', () => {
    const request = loadRequestFixture('invoice');
    at(request, 'Lines', 0, 'TaxSubTotals', 0).TaxAmount = '57000';
    at(request, 'Total').PayableAmount = 395901.36;
    expect(issuePaths(invoiceRequestSchema, request)).toEqual([
      'Lines[0].TaxSubTotals[0].TaxAmount',
      'Total.PayableAmount',
    ]);
  });

  test('a negative amount is rejected', () => {
    const request = loadRequestFixture('invoice');
    at(request, 'Lines', 2).UnitPrice = '-10.50';
    expect(issuePaths(invoiceRequestSchema, request)).toEqual(['Lines[2].UnitPrice']);
  });

  test('IssueDate, DueDate and DeliveryDate are real yyyy-MM-ddTHH:mm:ss; PaymentMeans DueDate is yyyy-MM-dd', () => {
    const request = loadRequestFixture('invoice');
    request.IssueDate = '2026-11-20';
    request.DueDate = '2026-02-30T10:00:00';
    request.DeliveryDate = '2026-11-20T10:15:00Z';
    at(request, 'PaymentMeans', 0).DueDate = '2026-12-20T00:00:00';
    expect(issuePaths(invoiceRequestSchema, request)).toEqual([
      'IssueDate',
      'DueDate',
      'DeliveryDate',
      'PaymentMeans[0].DueDate',
    ]);
  });

  test('Identification fields are strings', () => {
    const request = loadRequestFixture('invoice');
    at(request, 'CustomerParty', 'Identification').CheckDigit = 4;
    expect(issuePaths(invoiceRequestSchema, request)).toEqual([
      'CustomerParty.Identification.CheckDigit',
    ]);
  });

  test('a document reference takes only the four documented fields', () => {
    const request = loadRequestFixture('credit-note');
    at(request, 'DocumentReferences', 0).Cufe = 'x';
    expect(issuePaths(invoiceRequestSchema, request)).toEqual(['DocumentReferences[0].Cufe']);
  });
});

describe('E5 support document request', () => {
  test('the fixture matches the E5 schema once its PeriodStartDate placeholder is replaced', () => {
    const request = loadRequestFixture('support-document', '2026-11-19');
    expect(supportDocumentRequestSchema.parse(request)).toEqual(request);
    expect(at(request, 'Lines', 0).PeriodStartDate).toBe('2026-11-19');
  });

  test('the raw placeholder is not a date', () => {
    const request = loadRequestFixture('support-document', '{{RECENT_DATE}}');
    expect(issuePaths(supportDocumentRequestSchema, request)).toEqual([
      'Lines[0].PeriodStartDate',
      'Lines[1].PeriodStartDate',
      'Lines[2].PeriodStartDate',
    ]);
  });

  test('CustomerParty is accepted as an equivalent of SupplierParty', () => {
    const request = loadRequestFixture('support-document');
    request.CustomerParty = request.SupplierParty;
    delete request.SupplierParty;
    expect(issuePaths(supportDocumentRequestSchema, request)).toEqual([]);
  });

  test('SeriePrefix and SerieNumber may be omitted', () => {
    const request = loadRequestFixture('support-document');
    delete request.SeriePrefix;
    delete request.SerieNumber;
    expect(issuePaths(supportDocumentRequestSchema, request)).toEqual([]);
  });

  test('wrong formats and unknown keys are reported at their paths', () => {
    const request = loadRequestFixture('support-document');
    at(request, 'Lines', 1).PeriodStartDate = '2026-02-30';
    at(request, 'Lines', 0, 'WithholdingTaxSubTotals', 1).TaxPercentage = '2.5';
    at(request, 'SupplierParty', 'Address').City = 'Bogotá';
    at(request, 'SupplierParty').ResponsabilityTypes = 'R-99-PN';
    at(request, 'Total').WithholdingTaxAmount = '58500';
    expect(issuePaths(supportDocumentRequestSchema, request)).toEqual([
      'SupplierParty.ResponsabilityTypes',
      'SupplierParty.Address.City',
      'Lines[0].WithholdingTaxSubTotals[1].TaxPercentage',
      'Lines[1].PeriodStartDate',
      'Total.WithholdingTaxAmount',
    ]);
  });

  test('a support document has no document-type field nor document-level TaxSubTotals', () => {
    const request = loadRequestFixture('support-document');
    request.ReasonCredit = 'x';
    request.TaxSubTotals = [];
    expect(issuePaths(supportDocumentRequestSchema, request)).toEqual([
      'ReasonCredit',
      'TaxSubTotals',
    ]);
  });
});

describe('E6 support adjustment note request', () => {
  test.each(['adjustment-note', 'adjustment-note-annul'] as const)(
    'the %s fixture matches the E6 schema',
    (name) => {
      const request = loadRequestFixture(name);
      expect(adjustmentNoteRequestSchema.parse(request)).toEqual(request);
    },
  );

  test('DocumentReferences is required and not empty', () => {
    expect(issuePaths(adjustmentNoteRequestSchema, {})).toEqual(['DocumentReferences']);
    expect(issuePaths(adjustmentNoteRequestSchema, { DocumentReferences: [] })).toEqual([
      'DocumentReferences',
    ]);
  });

  test('a reference needs DocumentReferred or DocumentReferredCUFE', () => {
    const ok = (ref: Json) =>
      issuePaths(adjustmentNoteRequestSchema, { DocumentReferences: [ref] });
    expect(ok({ DocumentReferred: 'DS990000001' })).toEqual([]);
    expect(ok({ DocumentReferredCUFE: 'a914fc92' })).toEqual([]);
    expect(ok({ IssueDate: '2026-11-20' })).toEqual(['DocumentReferences[0].DocumentReferred']);
    expect(ok({ DocumentReferred: '', DocumentReferredCUFE: '  ' })).toEqual([
      'DocumentReferences[0].DocumentReferred',
    ]);
    expect(
      issuePaths(adjustmentNoteRequestSchema, {
        DocumentReferences: [{ DocumentReferred: 'DS1' }, {}],
      }),
    ).toEqual(['DocumentReferences[1].DocumentReferred']);
  });

  test('only COP is admitted as Currency', () => {
    const request = loadRequestFixture('adjustment-note-annul');
    request.Currency = 'USD';
    expect(issuePaths(adjustmentNoteRequestSchema, request)).toEqual(['Currency']);
    delete request.Currency;
    expect(issuePaths(adjustmentNoteRequestSchema, request)).toEqual([]);
  });

  test('SupplierParty and Total are required when Lines are sent', () => {
    const request = loadRequestFixture('adjustment-note');
    delete request.SupplierParty;
    delete request.Total;
    expect(issuePaths(adjustmentNoteRequestSchema, request)).toEqual(['SupplierParty', 'Total']);
  });

  test('without Lines neither SupplierParty nor Total is required (annulment)', () => {
    const request = loadRequestFixture('adjustment-note-annul');
    expect(request.Lines).toBeUndefined();
    expect(request.SupplierParty).toBeUndefined();
    expect(issuePaths(adjustmentNoteRequestSchema, request)).toEqual([]);
  });

  test('lines follow the support document line schema', () => {
    const request = loadRequestFixture('adjustment-note');
    at(request, 'Lines', 0).NetAmount = '500000';
    at(request, 'Lines', 0).Discount = '0.00';
    expect(issuePaths(adjustmentNoteRequestSchema, request)).toEqual([
      'Lines[0].NetAmount',
      'Lines[0].Discount',
    ]);
  });

  test('several problems are reported together', () => {
    const request = loadRequestFixture('adjustment-note');
    request.Currency = 'EUR';
    request.IssueDate = '2026-11-21';
    request.SeriePrefx = 'NDS';
    delete request.Total;
    expect(issuePaths(adjustmentNoteRequestSchema, request).sort()).toEqual([
      'Currency',
      'IssueDate',
      'SeriePrefx',
      'Total',
    ]);
  });
});
