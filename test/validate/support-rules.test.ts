import { describe, expect, it } from 'vitest';
import { supportRules } from '../../src/validate/support-rules.js';
import { addDays } from '../../src/policy/dates.js';
import { loadRequestFixture } from '../fixtures/requests/index.js';
import { edit, paths, push, remove } from './edit.js';

const today = '2026-11-22';
const support = (): Record<string, unknown> =>
  loadRequestFixture('support-document', addDays(today, -1));
const note = (): Record<string, unknown> =>
  loadRequestFixture('adjustment-note', addDays(today, -1));

describe('support document rules (spec rules 2–7)', () => {
  it('a document mixing taxed, exempt and excluded lines with 05 and 06 withholdings passes', () => {
    expect(supportRules(support(), { today })).toEqual([]);
    expect(supportRules(note(), { today })).toEqual([]);
  });

  it('rule 2: a withholding (05/06) in TaxSubTotals is an error', () => {
    const r = support();
    push(r, 'Lines[0].TaxSubTotals', { TaxCategory: '06', TaxPercentage: '2.50' });
    const problems = supportRules(r, { today });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      code: 'EDOC_VALIDATE_TAX',
      path: 'Lines[0].TaxSubTotals[1].TaxCategory',
    });
    expect(problems[0].message).toContain('WithholdingTaxSubTotals');
  });

  it('rule 2: VAT (01) in WithholdingTaxSubTotals is an error', () => {
    const r = support();
    push(r, 'Lines[1].WithholdingTaxSubTotals', { TaxCategory: '01', TaxPercentage: '19.00' });
    expect(paths(supportRules(r, { today }))).toEqual([
      'Lines[1].WithholdingTaxSubTotals[1].TaxCategory',
    ]);
  });

  it("rule 2: crossing in an adjustment note's document-level lists is an error", () => {
    const r = note();
    edit(r, 'TaxTotals', [{ TaxCategory: '05', TaxAmount: '0.00' }]);
    edit(r, 'WithholdingTaxTotals', [{ TaxCategory: '01', TaxAmount: '0.00' }]);
    expect(paths(supportRules(r, { today }))).toEqual([
      'TaxTotals[0].TaxCategory',
      'WithholdingTaxTotals[0].TaxCategory',
    ]);
  });

  it('rule 3: a line admits one VAT rate only', () => {
    const r = support();
    push(r, 'Lines[0].TaxSubTotals', {
      TaxCategory: '01',
      TaxPercentage: '5.00',
      TaxableAmount: '1000000.00',
      TaxAmount: '50000.00',
    });
    const problems = supportRules(r, { today });
    expect(paths(problems)).toEqual(['Lines[0].TaxSubTotals']);
    expect(problems[0].message).toMatch(/Line 1 carries more than one VAT rate \(19%, 5%\)/);
  });

  it('rule 4: an exempt entry has rate 0 and TaxAmount 0.00; an excluded line has no entry at all', () => {
    const r = support();
    edit(r, 'Lines[1].TaxSubTotals[0].TaxAmount', '10.00');
    expect(paths(supportRules(r, { today }))).toEqual(['Lines[1].TaxSubTotals[0].TaxAmount']);
    const excluded = support();
    remove(excluded, 'Lines[1].TaxSubTotals');
    expect(supportRules(excluded, { today })).toEqual([]);
    const noRate = support();
    remove(noRate, 'Lines[1].TaxSubTotals[0].TaxPercentage');
    expect(paths(supportRules(noRate, { today }))).toEqual([
      'Lines[1].TaxSubTotals[0].TaxPercentage',
    ]);
  });

  it('rule 5: a PayableAmount with the withholdings subtracted is named as such', () => {
    const r = support();
    edit(r, 'Total.PayableAmount', '1381500.00'); // 1440000.00 − 58500.00
    const problems = supportRules(r, { today });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'EDOC_VALIDATE_TAX', path: 'Total.PayableAmount' });
    expect(problems[0].message).toContain('1440000.00');
  });

  it('rule 6: withholding entries need TaxCategory and TaxPercentage; amounts are optional', () => {
    expect(supportRules(support(), { today })).toEqual([]);
    const r = support();
    edit(r, 'Lines[0].WithholdingTaxSubTotals[1]', { TaxCategory: '06', TaxAmount: '25000.00' });
    edit(r, 'Lines[1].WithholdingTaxSubTotals[0]', { TaxPercentage: '2.50' });
    expect(paths(supportRules(r, { today }))).toEqual([
      'Lines[0].WithholdingTaxSubTotals[1].TaxPercentage',
      'Lines[1].WithholdingTaxSubTotals[0].TaxCategory',
    ]);
  });

  it('rule 7: PeriodStartDate may be at most 6 days before today', () => {
    const sixDays = loadRequestFixture('support-document', addDays(today, -6));
    expect(supportRules(sixDays, { today })).toEqual([]);
    const r = support();
    edit(r, 'Lines[1].PeriodStartDate', addDays(today, -7));
    const problems = supportRules(r, { today });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      code: 'EDOC_VALIDATE_PERIOD',
      path: 'Lines[1].PeriodStartDate',
    });
    expect(problems[0].message).toBe(
      'Line 2: PeriodStartDate 2026-11-15 is 7 days before 2026-11-22; an accumulated operation may start at most 6 days before the current date',
    );
  });

  it('rule 7: every late line gets its own message, naming the line by position when it has no Number', () => {
    const r = loadRequestFixture('support-document', '2026-10-01');
    edit(r, 'Lines[0].Number', '10');
    remove(r, 'Lines[2].Number');
    const problems = supportRules(r, { today });
    expect(paths(problems)).toEqual([
      'Lines[0].PeriodStartDate',
      'Lines[1].PeriodStartDate',
      'Lines[2].PeriodStartDate',
    ]);
    expect(problems.map((p) => p.message.split(':')[0])).toEqual(['Line 10', 'Line 2', 'Line 3']);
  });

  it('needs a real today', () => {
    expect(() => supportRules(support(), { today: '22/11/2026' })).toThrow(RangeError);
  });

  it('ignores what is not there', () => {
    expect(supportRules({}, { today })).toEqual([]);
    expect(supportRules(null, { today })).toEqual([]);
    expect(supportRules(loadRequestFixture('adjustment-note-annul'), { today })).toEqual([]);
  });
});
