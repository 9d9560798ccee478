import { describe, expect, it } from 'vitest';
import { invoiceTotals, supportTotals } from '../../src/validate/totals.js';
import { loadRequestFixture } from '../fixtures/requests/index.js';

import { edit, get, paths, push, remove } from './edit.js';

const invoice = (): Record<string, unknown> => loadRequestFixture('invoice');
const support = (): Record<string, unknown> => loadRequestFixture('support-document');

describe('E1 totals', () => {
  it('accept a consistent invoice, credit note and debit note', () => {
    expect(invoiceTotals(invoice())).toEqual([]);
    expect(invoiceTotals(loadRequestFixture('credit-note'))).toEqual([]);
    expect(invoiceTotals(loadRequestFixture('debit-note'))).toEqual([]);
  });

  it('line NetAmount must be Quantity × UnitPrice to the cent', () => {
    const r = invoice();
    edit(r, 'Lines[1].NetAmount', '37037.00');
    const problems = invoiceTotals(r);
    expect(problems[0]).toMatchObject({ code: 'EDOC_VALIDATE_TOTALS', path: 'Lines[1].NetAmount' });
    expect(problems[0].message).toContain('37037.01');
  });

  it('line TaxAmount is TaxableAmount × rate half-up: 10.50 × 19% = 2.00, not 1.99', () => {
    const r = invoice();
    edit(r, 'Lines[2].TaxSubTotals[0].TaxAmount', '1.99');
    expect(paths(invoiceTotals(r))).toContain('Lines[2].TaxSubTotals[0].TaxAmount');
  });

  it('document TaxSubTotals are the per-rate sums of the lines', () => {
    const r = invoice();
    edit(r, 'TaxSubTotals[0].TaxableAmount', '300000.00');
    expect(paths(invoiceTotals(r))).toEqual(['TaxSubTotals[0].TaxableAmount']);
    const missing = invoice();
    remove(missing, 'TaxSubTotals[1]');
    expect(
      invoiceTotals(missing)
        .map((p) => p.message)
        .join(),
    ).toContain('01 at 5%');
    const extra = invoice();
    push(extra, 'TaxSubTotals', {
      TaxCategory: '01',
      TaxPercentage: '8.00',
      TaxableAmount: '0.00',
      TaxAmount: '0.00',
    });
    expect(paths(invoiceTotals(extra))).toContain('TaxSubTotals[2]');
  });

  it('groups rates written 19 and 19.00 together', () => {
    const r = invoice();
    edit(r, 'TaxSubTotals[0].TaxPercentage', '19');
    expect(invoiceTotals(r)).toEqual([]);
  });

  it('TaxTotals per category are the sum of the subtotals', () => {
    const r = invoice();
    edit(r, 'TaxTotals[0].TaxAmount', '58853.84');
    expect(paths(invoiceTotals(r))).toEqual(['TaxTotals[0].TaxAmount']);
    const line = invoice();
    edit(line, 'Lines[0].TaxTotals[0].TaxAmount', '1.00');
    expect(paths(invoiceTotals(line))).toEqual(['Lines[0].TaxTotals[0].TaxAmount']);
  });

  it('Total: Gross = Σ nets, Taxable = Σ taxed bases, Billable = Gross + taxes, Payable = Billable', () => {
    const r = invoice();
    edit(r, 'Total.GrossAmount', '1.00');
    edit(r, 'Total.TaxableAmount', '2.00');
    edit(r, 'Total.TotalBillableAmount', '3.00');
    edit(r, 'Total.PayableAmount', '395901.36');
    expect(paths(invoiceTotals(r))).toEqual([
      'Total.GrossAmount',
      'Total.TaxableAmount',
      'Total.TotalBillableAmount',
      'Total.PayableAmount',
    ]);
  });

  it('an exempt line counts in the taxable base, an excluded one does not', () => {
    const r = invoice();
    // Line 3 becomes exempt: rate 0, tax 0.00.
    edit(r, 'Lines[2].TaxSubTotals[0]', {
      TaxCategory: '01',
      TaxPercentage: '0.00',
      TaxableAmount: '10.50',
      TaxAmount: '0.00',
    });
    edit(r, 'Lines[2].TaxTotals[0].TaxAmount', '0.00');
    edit(r, 'TaxSubTotals[0]', {
      TaxCategory: '01',
      TaxPercentage: '19.00',
      TaxableAmount: '300000.00',
      TaxAmount: '57000.00',
    });
    push(r, 'TaxSubTotals', {
      TaxCategory: '01',
      TaxPercentage: '0.00',
      TaxableAmount: '10.50',
      TaxAmount: '0.00',
    });
    edit(r, 'TaxTotals[0].TaxAmount', '58851.85');
    edit(r, 'Total.TotalBillableAmount', '395899.36');
    edit(r, 'Total.PayableAmount', '395899.36');
    expect(invoiceTotals(r)).toEqual([]);
    // Now excluded: no TaxSubTotals; its 10.50 leaves the base.
    remove(r, 'Lines[2].TaxSubTotals');
    remove(r, 'Lines[2].TaxTotals');
    remove(r, 'TaxSubTotals[2]');
    expect(paths(invoiceTotals(r))).toEqual(['Total.TaxableAmount']);
    edit(r, 'Total.TaxableAmount', '337037.01');
    expect(invoiceTotals(r)).toEqual([]);
  });

  it('does not invent failures for absent blocks', () => {
    expect(invoiceTotals({})).toEqual([]);
    expect(invoiceTotals({ Lines: [{ Quantity: '1' }] })).toEqual([]);
    const r = invoice();
    remove(r, 'TaxSubTotals');
    remove(r, 'TaxTotals');
    remove(r, 'Total');
    expect(invoiceTotals(r)).toEqual([]);
    expect(invoiceTotals('not an object')).toEqual([]);
  });

  it('amounts must have two decimals', () => {
    const r = invoice();
    edit(r, 'Total.GrossAmount', '337047.5');
    expect(invoiceTotals(r)[0]).toMatchObject({
      code: 'EDOC_VALIDATE_AMOUNT',
      path: 'Total.GrossAmount',
    });
    const price = invoice();
    edit(price, 'Lines[0].UnitPrice', 150000);
    expect(paths(invoiceTotals(price))).toEqual(['Lines[0].UnitPrice']);
    const s = support();
    edit(s, 'Lines[2].NetAmount', '50000');
    expect(paths(supportTotals(s))).toEqual(['Lines[2].NetAmount']);
  });
});

describe('support document totals (E5 / E6)', () => {
  it('accept the reference-style document: 19% line, exempt line, excluded line, withholdings 05 and 06', () => {
    expect(supportTotals(support())).toEqual([]);
    expect(supportTotals(loadRequestFixture('adjustment-note'))).toEqual([]);
    expect(supportTotals(loadRequestFixture('adjustment-note-annul'))).toEqual([]);
  });

  it('TaxableAmount counts taxed and exempt lines but not the excluded one', () => {
    const r = support();
    edit(r, 'Total.TaxableAmount', '1250000.00');
    expect(paths(supportTotals(r))).toEqual(['Total.TaxableAmount']);
  });

  it("TaxAmount is the sum of the lines' VAT", () => {
    const r = support();
    edit(r, 'Total.TaxAmount', '190000.01');
    expect(paths(supportTotals(r))).toEqual(['Total.TaxAmount']);
  });

  it('PayableAmount is line values + VAT, withholdings not subtracted', () => {
    const r = support();
    edit(r, 'Total.PayableAmount', '1381500.00');
    const problems = supportTotals(r);
    expect(paths(problems)).toEqual(['Total.PayableAmount']);
    expect(problems[0].message).toContain('1440000.00');
  });

  it('WithholdingTaxAmount: 05 at 15% on the VAT plus 06 at 2.50% on the taxable amount', () => {
    const r = support();
    edit(r, 'Total.WithholdingTaxAmount', '58000.00');
    const problems = supportTotals(r);
    expect(paths(problems)).toEqual(['Total.WithholdingTaxAmount']);
    expect(problems[0].message).toContain('58500.00');
  });

  it('a withholding that carries its amount must carry the computed one', () => {
    const r = support();
    edit(r, 'Lines[0].WithholdingTaxSubTotals[0].TaxAmount', '28500.00');
    edit(r, 'Lines[0].WithholdingTaxSubTotals[1].TaxableAmount', '1000000.00');
    edit(r, 'Lines[0].WithholdingTaxSubTotals[1].TaxAmount', '25000.00');
    expect(supportTotals(r)).toEqual([]);
    edit(r, 'Lines[0].WithholdingTaxSubTotals[0].TaxAmount', '28000.00');
    edit(r, 'Lines[0].WithholdingTaxSubTotals[1].TaxableAmount', '1190000.00');
    expect(paths(supportTotals(r))).toEqual([
      'Lines[0].WithholdingTaxSubTotals[0].TaxAmount',
      'Lines[0].WithholdingTaxSubTotals[1].TaxableAmount',
    ]);
  });

  it('line VAT and NetAmount are checked to the cent', () => {
    const r = support();
    edit(r, 'Lines[0].TaxSubTotals[0].TaxAmount', '189999.99');
    edit(r, 'Lines[1].NetAmount', '200000.01');
    const got = paths(supportTotals(r));
    expect(got).toContain('Lines[0].TaxSubTotals[0].TaxAmount');
    expect(got).toContain('Lines[1].NetAmount');
  });

  it('TaxTotals per category add up the line VAT', () => {
    const r = support();
    edit(r, 'TaxTotals[0].TaxAmount', '1.00');
    expect(paths(supportTotals(r))).toEqual(['TaxTotals[0].TaxAmount']);
  });

  it("an adjustment note's WithholdingTaxTotals add up its withholdings", () => {
    const r = loadRequestFixture('adjustment-note');
    expect(get(r, 'Lines[0].WithholdingTaxSubTotals')).toBeInstanceOf(Array);
    edit(r, 'WithholdingTaxTotals', [{ TaxCategory: '05', TaxAmount: '999.99' }]);
    expect(paths(supportTotals(r))).toContain('WithholdingTaxTotals[0].TaxAmount');
  });
});
