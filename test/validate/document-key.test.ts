import { describe, expect, it } from 'vitest';
import { documentKey, formatKey, ownNumber } from '../../src/kinds/document-key.js';
import { loadRequestFixture } from '../fixtures/requests/index.js';
import { edit, remove } from './edit.js';

describe('document keys (prefix + number when the document carries its own)', () => {
  it('invoice, credit and debit notes: SeriePrefix + SerieNumber', () => {
    expect(documentKey('invoice', loadRequestFixture('invoice'))).toEqual({
      prefix: 'SETP',
      number: '990000001',
    });
    expect(documentKey('credit-note', { SeriePrefix: 'NC', SerieNumber: '17' })).toEqual({
      prefix: 'NC',
      number: '17',
    });
    expect(documentKey('debit-note', { SeriePrefix: ' ND ', SerieNumber: ' 0042 ' })).toEqual({
      prefix: 'ND',
      number: '42',
    });
    expect(documentKey('invoice', { SeriePrefix: 'SETP' })).toBeUndefined();
    expect(documentKey('invoice', { SeriePrefix: 'SETP', SerieNumber: '' })).toBeUndefined();
  });

  it('payroll: NumeroSecuenciaXML.Prefijo + Consecutivo', () => {
    expect(
      documentKey('payroll', { NumeroSecuenciaXML: { Prefijo: 'NOM', Consecutivo: '1001' } }),
    ).toEqual({ prefix: 'NOM', number: '1001' });
    expect(documentKey('payroll', { NumeroSecuenciaXML: { Prefijo: 'NOM' } })).toBeUndefined();
    expect(documentKey('payroll', {})).toBeUndefined();
  });

  it('support documents and adjustment notes: only when both prefix and number are given', () => {
    expect(documentKey('support-document', loadRequestFixture('support-document'))).toEqual({
      prefix: 'DS',
      number: '990000001',
    });
    const r = loadRequestFixture('support-document');
    remove(r, 'SerieNumber');
    expect(documentKey('support-document', r)).toBeUndefined();
    expect(ownNumber('support-document', r)).toBe(false);
    expect(documentKey('support-adjustment', { SerieNumber: '5' })).toBeUndefined();
    expect(documentKey('support-adjustment', { SeriePrefix: 'NDS', SerieNumber: '5' })).toEqual({
      prefix: 'NDS',
      number: '5',
    });
  });

  it('pos: documento.prefijo + numeroDocumento, else the E4 body or the E3 form fields', () => {
    expect(documentKey('pos', loadRequestFixture('pos-content'))).toEqual({
      prefix: 'POS',
      number: '1001',
    });
    const noNumber = loadRequestFixture('pos-content');
    edit(noNumber, 'documento.numeroDocumento', '');
    expect(documentKey('pos', noNumber)).toBeUndefined();
    expect(documentKey('pos', noNumber, { prefijo: 'POS', numeroDocumento: 77 })).toEqual({
      prefix: 'POS',
      number: '77',
    });
    const body = {
      companyId: 1001,
      prefijo: 'POS',
      numero: 12,
      jsonOriginal: JSON.stringify({ documento: { prefijo: 'POS' } }),
    };
    expect(documentKey('pos', body)).toEqual({ prefix: 'POS', number: '12' });
    expect(documentKey('pos', { jsonOriginal: '{broken' })).toBeUndefined();
  });

  it('ownNumber says whether a lost request may be resent', () => {
    expect(ownNumber('invoice', loadRequestFixture('invoice'))).toBe(true);
    expect(ownNumber('invoice', {})).toBe(false);
    expect(ownNumber('pos', null)).toBe(false);
  });

  it('formats company/kind/prefix/number', () => {
    expect(formatKey('main', 'invoice', { prefix: 'SETP', number: '990000001' })).toBe(
      'main/invoice/SETP/990000001',
    );
  });
});
