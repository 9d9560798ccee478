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
