import { describe, expect, it } from 'vitest';
import { repeatedNumberMessage } from '../../src/ledger/number-text.js';

describe('the repeated-number (Regla 90) advice', () => {
  it('does not send a corrected re-export under a new number without a note on the one issued', () => {
    // SETP990021000's first export (payable 2380.00) got no answer but was issued; its correction
    // (3094.00) is answered Regla 90: a new number alone would invoice the sale twice
    const message = repeatedNumberMessage('main/invoice/SETP/990021000', 'main/invoice/0');
    expect(message).toContain('--not-ours (and give the document a new number; ');
    expect(message).toContain(
      'if what it holds is an earlier export of this same document with other content, that export is the one issued: ' +
        'annul or correct it with a credit or debit note first, or a new number issues the sale twice',
    );
  });
});

describe('the repeated-number advice names the correction of its own kind', () => {
  it('a POS adjustment note: another POS adjustment note referencing the sale, never a credit or debit note', () => {
    const message = repeatedNumberMessage('main/pos/POS/1301', 'main/pos/0', 'pos', true);
    expect(message).toContain(
      'that export is the one issued: correct it first (issue another POS adjustment note referencing the sale ' +
        'POS1301 corrected (nota-ajuste-credito for credit still missing or a charge made in excess, ' +
        'nota-ajuste-debito for a charge still missing or credit given in excess; a note references a sale, never ' +
        'another note)), or a new number issues it twice',
    );
    expect(message).not.toMatch(/credit or debit note|credit note|debit note/);
  });

  it('a payroll: a payroll adjustment note', () => {
    const message = repeatedNumberMessage('main/payroll/NOM/77', 'main/payroll/0', 'payroll');
    expect(message).toContain(
      'correct it first (issue a payroll adjustment note (TipoNota 1) replacing NOM77), or a new number issues it twice',
    );
  });
});
