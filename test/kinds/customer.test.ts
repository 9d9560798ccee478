/**
 * Each kind's descriptor says where a document's other party is (the console's search by customer id):
 * the buyer of E1 documents, the supplier of support documents, the worker of a payroll, the POS acquirer
 * (in the content or inside an E4 body's jsonOriginal). Never more than an id: absent, empty or absurdly
 * long values give none.
 */
import { describe, expect, it } from 'vitest';
import { kindOf } from '../../src/kinds/index.js';

const party = (id: unknown): unknown => ({ Identification: { DocumentNumber: id } });

describe('customer id per kind', () => {
  it('E1 kinds read CustomerParty, trimmed', () => {
    for (const kind of ['invoice', 'credit-note', 'debit-note'] as const) {
      expect(kindOf(kind).customer({ CustomerParty: party(' 900123456 ') })).toBe('900123456');
      expect(kindOf(kind).customer({ SupplierParty: party('1') })).toBeUndefined();
    }
  });

  it('support documents read SupplierParty, or CustomerParty (its equivalent); adjustments SupplierParty', () => {
    expect(
      kindOf('support-document').customer({
        SupplierParty: party('1001'),
        CustomerParty: party('2'),
      }),
    ).toBe('1001');
    expect(kindOf('support-document').customer({ CustomerParty: party('2002') })).toBe('2002');
    expect(kindOf('support-adjustment').customer({ SupplierParty: party('3003') })).toBe('3003');
  });

  it('payroll reads the worker; POS the acquirer, also inside an E4 body', () => {
    expect(kindOf('payroll').customer({ Trabajador: { NumeroDocumento: '52123456' } })).toBe(
      '52123456',
    );
    expect(kindOf('pos').customer({ adquiriente: { identificacion: '222222222222' } })).toBe(
      '222222222222',
    );
    expect(
      kindOf('pos').customer({
        prefijo: 'P',
        jsonOriginal: JSON.stringify({ adquiriente: { identificacion: '7007' } }),
      }),
    ).toBe('7007');
  });

  it('nothing for a missing, empty, non-text or too long value, or a request that is not an object', () => {
    for (const request of [
      {},
      { CustomerParty: party('') },
      { CustomerParty: party({ x: 1 }) },
      { CustomerParty: party('9'.repeat(41)) },
      { CustomerParty: 'x' },
      null,
      'text',
      [1],
    ]) {
      expect(kindOf('invoice').customer(request)).toBeUndefined();
    }
    expect(kindOf('invoice').customer({ CustomerParty: party(900123456) })).toBe('900123456');
  });
});
