import { describe, expect, it } from 'vitest';
import { validateDocument } from '../../src/kinds/validate-document.js';
import { addDays } from '../../src/policy/dates.js';
import { loadRequestFixture, requestFixtureText } from '../fixtures/requests/index.js';
import { edit, paths, push, remove } from './edit.js';

const today = '2026-11-22';
const ctx = { today, issuerNit: '900123456' };

describe('validateDocument = schema + kind guards + check digits + issuer + totals + support rules', () => {
  it('reports a schema problem with its path and EDOC_VALIDATE_SCHEMA', () => {
    const r = loadRequestFixture('invoice');
    edit(r, 'Lines[0].Quantty', '2');
    edit(r, 'IssueDate', '2026-11-20');
    const problems = validateDocument('invoice', r, ctx);
    expect(
      problems
        .filter((p) => p.code === 'EDOC_VALIDATE_SCHEMA')
        .map((p) => p.path)
        .sort(),
    ).toEqual(['IssueDate', 'Lines[0].Quantty']);
  });

  it('an invoice in the credit-note folder fails the kind guard', () => {
    const problems = validateDocument('credit-note', loadRequestFixture('invoice'), ctx);
    expect(problems.map((p) => p.code)).toEqual(['EDOC_VALIDATE_KIND', 'EDOC_VALIDATE_KIND']);
  });

  it('reports one problem per field: a malformed amount is not also a sum that fails', () => {
    const r = loadRequestFixture('invoice');
    edit(r, 'Total.GrossAmount', '337047.5');
    const problems = validateDocument('invoice', r, ctx);
    expect(paths(problems)).toEqual(['Total.GrossAmount']);
    expect(problems[0].code).toBe('EDOC_VALIDATE_SCHEMA');
  });

  it('names the rule-5 mistake instead of a bare mismatch', () => {
    const r = loadRequestFixture('support-document', addDays(today, -1));
    edit(r, 'Total.PayableAmount', '1381500.00');
    const problems = validateDocument('support-document', r, ctx);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'EDOC_VALIDATE_TAX', path: 'Total.PayableAmount' });
  });

  it('a withholding misplaced among the VAT entries is one rule-2 problem, not also a VAT mismatch', () => {
    const r = loadRequestFixture('support-document', addDays(today, -1));
    push(r, 'Lines[0].TaxSubTotals', {
      TaxCategory: '05',
      TaxPercentage: '15.00',
      TaxableAmount: '190000.00',
      TaxAmount: '28500.00',
    });
    expect(validateDocument('support-document', r, ctx)).toEqual([
      expect.objectContaining({
        code: 'EDOC_VALIDATE_TAX',
        path: 'Lines[0].TaxSubTotals[1].TaxCategory',
      }),
    ]);
  });

  it('runs the support rules for E5 and E6 with the given today', () => {
    const late = loadRequestFixture('support-document', addDays(today, -7));
    expect(validateDocument('support-document', late, ctx).map((p) => p.code)).toEqual([
      'EDOC_VALIDATE_PERIOD',
      'EDOC_VALIDATE_PERIOD',
      'EDOC_VALIDATE_PERIOD',
    ]);
    const note = loadRequestFixture('adjustment-note', addDays(today, -7));
    expect(
      validateDocument('support-adjustment', note, ctx).every(
        (p) => p.code === 'EDOC_VALIDATE_PERIOD',
      ),
    ).toBe(true);
    expect(validateDocument('support-adjustment', note, { today: addDays(today, -3) })).toEqual([]);
  });

  it('checks check digits and the totals together', () => {
    const r = loadRequestFixture('invoice');
    edit(r, 'CustomerParty.Identification.CheckDigit', '1');
    edit(r, 'Lines[0].NetAmount', '300000.01');
    const codes = validateDocument('invoice', r, ctx).map((p) => p.code);
    expect(codes).toContain('EDOC_VALIDATE_CHECK_DIGIT');
    expect(codes).toContain('EDOC_VALIDATE_TOTALS');
  });

  it("the issuer (or payroll employer) must be the company's NIT when one is given", () => {
    const r = loadRequestFixture('invoice');
    expect(validateDocument('invoice', r, { today, issuerNit: '900.123.456-8' })).toEqual([]);
    expect(validateDocument('invoice', r, { today, issuerNit: '800197268' })).toEqual([
      {
        code: 'EDOC_VALIDATE_ISSUER',
        path: 'IssuerParty.Identification.DocumentNumber',
        message: "The issuer NIT 900123456 is not the company's NIT 800197268",
      },
    ]);
    expect(validateDocument('invoice', r, { today })).toEqual([]);
    expect(
      paths(
        validateDocument('payroll', loadRequestFixture('payroll'), {
          today,
          issuerNit: '800197268',
        }),
      ),
    ).toEqual(['Empleador.NIT']);
  });

  it('a support document is a purchase from someone else: a supplier named as the company is refused', () => {
    const base = loadRequestFixture('support-document');
    expect(validateDocument('support-document', base, ctx)).toEqual([]);
    const supplier = (
      r: unknown,
      kind: 'support-document' | 'support-adjustment' = 'support-document',
    ) => validateDocument(kind, r, ctx).filter((p) => p.code === 'EDOC_VALIDATE_SUPPLIER');
    // the company's own NIT, written as the ERP writes it: the service would issue it as sent
    const self = loadRequestFixture('support-document');
    edit(self, 'SupplierParty.Identification', {
      DocumentNumber: '900.123.456-8',
      DocumentType: '31',
      CountryCode: 'CO',
    });
    expect(supplier(self).map((p) => p.path)).toEqual([
      'SupplierParty.Identification.DocumentNumber',
    ]);
    expect(supplier(self)[0].message).toContain('is the company itself (NIT 900123456)');
    // no party, or a party without its identification: the service completes it from the provider
    // registered for the company (spec rule 1), which the bridge cannot see: sent
    const none = loadRequestFixture('support-document');
    remove(none, 'SupplierParty');
    expect(supplier(none)).toEqual([]);
    const nameOnly = loadRequestFixture('support-document');
    edit(nameOnly, 'SupplierParty', { Name: 'Pedro Antonio Gómez' });
    expect(supplier(nameOnly)).toEqual([]);
    // CustomerParty stands for SupplierParty when that is absent
    const asCustomer = loadRequestFixture('support-document');
    edit(asCustomer, 'CustomerParty', structuredClone(base.SupplierParty));
    remove(asCustomer, 'SupplierParty');
    expect(supplier(asCustomer)).toEqual([]);
    edit(asCustomer, 'CustomerParty.Identification.DocumentNumber', '900123456');
    expect(supplier(asCustomer).map((p) => p.path)).toEqual([
      'CustomerParty.Identification.DocumentNumber',
    ]);
    // an adjustment note names a supplier only with its lines; an annulment takes the document's
    expect(supplier(loadRequestFixture('adjustment-note-annul'), 'support-adjustment')).toEqual([]);
    const note = loadRequestFixture('adjustment-note');
    expect(supplier(note, 'support-adjustment')).toEqual([]);
    edit(note, 'SupplierParty.Identification.DocumentNumber', '900123456');
    expect(supplier(note, 'support-adjustment').length).toBe(1);
  });

  it("a payroll period that ends before it starts is refused (the bridge's own rule); one day is fine", () => {
    const period = (start: string, end: string) => {
      const r = loadRequestFixture('payroll');
      edit(r, 'Periodo.FechaLiquidacionInicio', start);
      edit(r, 'Periodo.FechaLiquidacionFin', end);
      return validateDocument('payroll', r, ctx);
    };
    expect(period('2026-11-01', '2026-11-30')).toEqual([]);
    expect(period('2026-11-30', '2026-11-30')).toEqual([]);
    // Fecha fin 01/10/2026 and Fecha inicio 01/11/2026: the period would end a month before it starts
    const swapped = period('2026-11-01', '2026-10-01');
    expect(swapped.map((p) => [p.code, p.path])).toEqual([
      ['EDOC_VALIDATE_PAYROLL_PERIOD', 'Periodo.FechaLiquidacionFin'],
    ]);
    expect(swapped[0].message).toContain(
      'ends (FechaLiquidacionFin 2026-10-01) before it starts (FechaLiquidacionInicio 2026-11-01)',
    );
    // a date that is no yyyy-MM-dd is the schema's alone
    expect(period('2026-11-01', '01/10/2026').map((p) => p.code)).toEqual(['EDOC_VALIDATE_SCHEMA']);
  });

  it('pos: accepts the content itself or an E4 body carrying it as jsonOriginal', () => {
    expect(validateDocument('pos', loadRequestFixture('pos-content'), ctx)).toEqual([]);
    const body = {
      companyId: 1001,
      prefijo: 'POS',
      tipoFactura: 'pos',
      enviarCorreo: false,
      numero: 1001,
      jsonOriginal: requestFixtureText('pos-content'),
    };
    expect(validateDocument('pos', body, ctx)).toEqual([]);
    expect(validateDocument('pos', { ...body, jsonOriginal: '{' }, ctx).length).toBeGreaterThan(0);
  });

  it('every problem carries a code, a path and a message', () => {
    const r = loadRequestFixture('support-document', '2026-01-01');
    push(r, 'Lines[0].TaxSubTotals', { TaxCategory: '06', TaxPercentage: '2.50' });
    edit(r, 'SupplierParty.Identification.CheckDigit', '9');
    const problems = validateDocument('support-document', r, ctx);
    expect(problems.length).toBeGreaterThanOrEqual(5);
    for (const p of problems) {
      expect(typeof p.code).toBe('string');
      expect(typeof p.path).toBe('string');
      expect(p.message.length).toBeGreaterThan(10);
    }
  });
});
