import { describe, expect, it } from 'vitest';
import { kindGuards } from '../../src/kinds/kind-guards.js';
import { DOCUMENT_KINDS } from '../../src/kinds/index.js';
import { loadRequestFixture } from '../fixtures/requests/index.js';
import { edit, paths, remove } from './edit.js';

describe('kind guards (PRODUCT kinds table)', () => {
  it('invoice must not carry ReasonCredit or ReasonDebit', () => {
    expect(kindGuards('invoice', loadRequestFixture('invoice'))).toEqual([]);
    const r = loadRequestFixture('invoice');
    edit(r, 'ReasonCredit', 'Devolución');
    edit(r, 'ReasonDebit', ' ');
    const problems = kindGuards('invoice', r);
    expect(paths(problems)).toEqual(['ReasonCredit', 'ReasonDebit']);
    expect(problems.every((p) => p.code === 'EDOC_VALIDATE_KIND')).toBe(true);
    // An empty string is no value at all.
    edit(r, 'ReasonCredit', '');
    remove(r, 'ReasonDebit');
    expect(kindGuards('invoice', r)).toEqual([]);
  });

  it('an empty document ({} or no Lines) of an E1 or E5 kind is never sent', () => {
    for (const kind of ['invoice', 'credit-note', 'debit-note', 'support-document'] as const) {
      expect(paths(kindGuards(kind, {}))).toContain('Lines');
    }
    const r = loadRequestFixture('invoice');
    edit(r, 'Lines', []);
    expect(paths(kindGuards('invoice', r))).toEqual(['Lines']);
  });

  it('credit-note requires ReasonCredit and a DocumentReferences entry', () => {
    expect(kindGuards('credit-note', loadRequestFixture('credit-note'))).toEqual([]);
    const r = loadRequestFixture('credit-note');
    edit(r, 'ReasonCredit', '   ');
    edit(r, 'DocumentReferences', []);
    expect(paths(kindGuards('credit-note', r))).toEqual(['ReasonCredit', 'DocumentReferences']);
    // An invoice dropped in the credit-note folder.
    expect(paths(kindGuards('credit-note', loadRequestFixture('invoice')))).toEqual([
      'ReasonCredit',
      'DocumentReferences',
    ]);
  });

  it('debit-note requires ReasonDebit and an empty ReasonCredit', () => {
    expect(kindGuards('debit-note', loadRequestFixture('debit-note'))).toEqual([]);
    const r = loadRequestFixture('debit-note');
    edit(r, 'ReasonCredit', 'Anulación');
    expect(paths(kindGuards('debit-note', r))).toEqual(['ReasonCredit']);
    remove(r, 'ReasonDebit');
    edit(r, 'ReasonCredit', '');
    expect(paths(kindGuards('debit-note', r))).toEqual(['ReasonDebit']);
  });

  it('payroll: TipoNota is empty, 1 or 2, and the Reemplazar / Eliminar block matches it', () => {
    expect(kindGuards('payroll', loadRequestFixture('payroll'))).toEqual([]);
    expect(kindGuards('payroll', loadRequestFixture('payroll-adjustment'))).toEqual([]);
    const normal = loadRequestFixture('payroll');
    remove(normal, 'TipoNota');
    expect(kindGuards('payroll', normal)).toEqual([]);
    edit(normal, 'TipoNota', '3');
    expect(paths(kindGuards('payroll', normal))).toEqual(['TipoNota']);
    const adjustment = loadRequestFixture('payroll-adjustment');
    edit(adjustment, 'TipoNota', '2');
    expect(paths(kindGuards('payroll', adjustment))).toEqual(['Reemplazar']);
    edit(adjustment, 'TipoNota', '');
    expect(paths(kindGuards('payroll', adjustment))).toEqual(['Reemplazar']);
    const elimination = loadRequestFixture('payroll');
    edit(elimination, 'TipoNota', '2');
    edit(elimination, 'Eliminar', {});
    expect(kindGuards('payroll', elimination)).toEqual([]);
    edit(elimination, 'TipoNota', '1');
    expect(paths(kindGuards('payroll', elimination))).toEqual(['Eliminar']);
  });

  it('support-adjustment needs a reference with DocumentReferred or its CUFE, and COP when a currency is given', () => {
    expect(kindGuards('support-adjustment', loadRequestFixture('adjustment-note'))).toEqual([]);
    expect(kindGuards('support-adjustment', loadRequestFixture('adjustment-note-annul'))).toEqual(
      [],
    );
    const cufeOnly = loadRequestFixture('adjustment-note');
    remove(cufeOnly, 'DocumentReferences[0].DocumentReferred');
    expect(kindGuards('support-adjustment', cufeOnly)).toEqual([]);
    const neither = loadRequestFixture('adjustment-note');
    edit(neither, 'DocumentReferences[0]', { IssueDate: '2026-11-20' });
    edit(neither, 'Currency', 'USD');
    expect(paths(kindGuards('support-adjustment', neither))).toEqual([
      'DocumentReferences[0].DocumentReferred',
      'Currency',
    ]);
    const none = loadRequestFixture('adjustment-note-annul');
    remove(none, 'DocumentReferences');
    expect(paths(kindGuards('support-adjustment', none))).toEqual(['DocumentReferences']);
  });

  it('support-adjustment with Lines needs SupplierParty and Total', () => {
    const r = loadRequestFixture('adjustment-note');
    remove(r, 'SupplierParty');
    remove(r, 'Total');
    expect(paths(kindGuards('support-adjustment', r))).toEqual(['SupplierParty', 'Total']);
  });

  it('support-adjustment without Lines annuls, so it names no concept but annulment (2)', () => {
    // a partial return (concept 1) sent without its lines: the service would reverse the whole document
    const partial = loadRequestFixture('adjustment-note-annul');
    edit(partial, 'CorrectionConceptCode', '1');
    edit(partial, 'CorrectionConcept', 'Devolución parcial');
    expect(paths(kindGuards('support-adjustment', partial))).toEqual(['CorrectionConceptCode']);
    edit(partial, 'CorrectionConceptCode', '4');
    expect(paths(kindGuards('support-adjustment', partial))).toEqual(['CorrectionConceptCode']);
    // blank or absent: the service's default 2, which the concept text must not contradict
    edit(partial, 'CorrectionConceptCode', ' ');
    expect(paths(kindGuards('support-adjustment', partial))).toEqual(['CorrectionConcept']);
    remove(partial, 'CorrectionConceptCode');
    expect(paths(kindGuards('support-adjustment', partial))).toEqual(['CorrectionConcept']);
    // blank, absent or 2 with an annulment's text, or no text: an annulment
    edit(partial, 'CorrectionConcept', 'Se anula documento');
    expect(kindGuards('support-adjustment', partial)).toEqual([]);
    remove(partial, 'CorrectionConcept');
    expect(kindGuards('support-adjustment', partial)).toEqual([]);
    edit(partial, 'CorrectionConceptCode', '2');
    edit(partial, 'CorrectionConcept', 'Compra registrada dos veces');
    expect(kindGuards('support-adjustment', partial)).toEqual([]);
    // with its lines, a partial return is what it says
    const withLines = loadRequestFixture('adjustment-note');
    edit(withLines, 'CorrectionConceptCode', '1');
    expect(kindGuards('support-adjustment', withLines)).toEqual([]);
  });

  it('support-document and pos need nothing beyond their schema', () => {
    expect(kindGuards('support-document', loadRequestFixture('support-document'))).toEqual([]);
    expect(kindGuards('pos', loadRequestFixture('pos-content'))).toEqual([]);
  });

  it('every kind refuses a request that is not an object', () => {
    for (const kind of DOCUMENT_KINDS) expect(paths(kindGuards(kind, [1, 2]))).toEqual(['']);
  });
});
