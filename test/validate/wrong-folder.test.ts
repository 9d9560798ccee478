/**
 * Issue 12 item 5: a document whose own content says it is of another kind
 * than its inbox folder is invalid before anything is sent (JSON / JSONL
 * requests; the CSV side is test/map/kind-check.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { DOCUMENT_KINDS, type DocumentKind } from '../../src/kinds/index.js';
import { validateDocument } from '../../src/kinds/validate-document.js';
import { loadRequestFixture, type RequestFixtureName } from '../fixtures/requests/index.js';
import { edit, remove } from './edit.js';

const CTX = { today: '2026-11-22', issuerNit: '900123456' };
const FIXTURE_KIND: Record<RequestFixtureName, DocumentKind> = {
  invoice: 'invoice',
  'credit-note': 'credit-note',
  'debit-note': 'debit-note',
  payroll: 'payroll',
  'payroll-adjustment': 'payroll',
  'support-document': 'support-document',
  'adjustment-note': 'support-adjustment',
  'adjustment-note-annul': 'support-adjustment',
  'pos-content': 'pos',
};
/** The wrong-folder problems (and the contradictions, EDOC_VALIDATE_KIND with "correct the document"). */
const wrongFolder = (kind: DocumentKind, request: unknown) =>
  validateDocument(kind, request, CTX).filter(
    (p) =>
      p.code === 'EDOC_VALIDATE_WRONG_FOLDER' ||
      (p.code === 'EDOC_VALIDATE_KIND' && p.message.endsWith('correct the document')),
  );

describe('a request that says it is of another kind than its folder', () => {
  it('a credit note (ReasonCredit) in the invoice folder names the field, the kind and the folder it belongs in', () => {
    const problems = validateDocument('invoice', loadRequestFixture('credit-note'), CTX);
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['EDOC_VALIDATE_WRONG_FOLDER', 'ReasonCredit'],
    ]);
    expect(problems[0].message).toBe(
      'ReasonCredit "Devolución parcial de los bienes" makes this a credit note, not an invoice; it is not sent: drop it in the credit-note folder instead of the invoice folder',
    );
  });

  it('a debit note (ReasonDebit) in the credit-note folder belongs in the debit-note folder; nothing else is reported', () => {
    const problems = validateDocument('credit-note', loadRequestFixture('debit-note'), CTX);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'EDOC_VALIDATE_WRONG_FOLDER', path: 'ReasonDebit' }),
    ]);
    expect(problems[0].message).toContain(
      'makes this a debit note, not a credit note; it is not sent: drop it in the debit-note folder',
    );
  });

  it('a credit note in the debit-note folder belongs in the credit-note folder', () => {
    const problems = wrongFolder('debit-note', loadRequestFixture('credit-note'));
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['EDOC_VALIDATE_WRONG_FOLDER', 'ReasonCredit'],
    ]);
    expect(problems[0].message).toContain('drop it in the credit-note folder');
  });

  it('ReasonCredit and ReasonDebit both set: no folder is right, the document must be corrected', () => {
    const both = loadRequestFixture('credit-note');
    edit(both, 'ReasonDebit', 'Intereses');
    for (const folder of ['invoice', 'credit-note', 'debit-note'] as const) {
      const problems = wrongFolder(folder, both);
      expect(problems.length, folder).toBeGreaterThan(0);
      expect(
        problems.every((p) => p.code === 'EDOC_VALIDATE_KIND'),
        folder,
      ).toBe(true);
      expect(problems.map((p) => p.message).join(' ')).toMatch(/correct the document/);
    }
    expect(wrongFolder('credit-note', both)[0].message).toBe(
      'ReasonDebit "Intereses" makes this a debit note, not a credit note, but ReasonCredit "Devolución parcial de los bienes" says a credit note; it is not sent: correct the document',
    );
  });

  it('an invoice may carry DocumentReferences (the spec lists them among E1 fields; only the reasons make a note)', () => {
    const r = loadRequestFixture('invoice');
    edit(r, 'DocumentReferences', [
      { DocumentReferred: 'OC-123', IssueDate: '2026-11-18', Type: 'OrderReference' },
    ]);
    expect(wrongFolder('invoice', r)).toEqual([]);
    edit(r, 'DocumentReferences', [{ DocumentReferred: 'SETP990000001', IssueDate: '2026-11-18' }]);
    expect(wrongFolder('invoice', r)).toEqual([]);
    // In the support-document folder a reference is still an adjustment note's (E5 has no such field).
    const ds = loadRequestFixture('support-document');
    edit(ds, 'DocumentReferences', [{ DocumentReferred: 'DS990000001' }]);
    expect(wrongFolder('support-document', ds).map((p) => [p.code, p.path])).toEqual([
      ['EDOC_VALIDATE_WRONG_FOLDER', 'DocumentReferences[0]'],
    ]);
    // An empty list, or an entry naming nothing, is no reference.
    edit(r, 'DocumentReferences', []);
    expect(wrongFolder('invoice', r)).toEqual([]);
    edit(r, 'DocumentReferences', [{ IssueDate: '2026-11-18' }]);
    expect(wrongFolder('invoice', r)).toEqual([]);
  });

  it('an adjustment note (reference, correction concept) in the support-document folder belongs in support-adjustment', () => {
    for (const name of ['adjustment-note', 'adjustment-note-annul'] as const) {
      const problems = wrongFolder('support-document', loadRequestFixture(name));
      expect(problems.length, name).toBeGreaterThan(0);
      expect(
        problems.every(
          (p) =>
            p.code === 'EDOC_VALIDATE_WRONG_FOLDER' &&
            p.message.endsWith(
              'drop it in the support-adjustment folder instead of the support-document folder',
            ),
        ),
        name,
      ).toBe(true);
    }
    const withConcept = loadRequestFixture('support-document');
    edit(withConcept, 'CorrectionConceptCode', '1');
    expect(wrongFolder('support-document', withConcept).map((p) => p.path)).toEqual([
      'CorrectionConceptCode',
    ]);
  });

  it('payroll adjustment (TipoNota 1) and elimination (TipoNota 2) are payroll: fine in the payroll folder', () => {
    const adjustment = loadRequestFixture('payroll-adjustment');
    expect(wrongFolder('payroll', adjustment)).toEqual([]);
    const elimination = loadRequestFixture('payroll');
    edit(elimination, 'TipoNota', '2');
    expect(wrongFolder('payroll', elimination)).toEqual([]);
  });

  it('every fixture is at home in its own folder, and named for what it is in every other folder that excludes it', () => {
    for (const [name, home] of Object.entries(FIXTURE_KIND) as [
      RequestFixtureName,
      DocumentKind,
    ][]) {
      expect(wrongFolder(home, loadRequestFixture(name)), `${name} in ${home}`).toEqual([]);
      for (const folder of DOCUMENT_KINDS) {
        if (folder === home) continue;
        const problems = wrongFolder(folder, loadRequestFixture(name));
        // An invoice (a support document) has no sign of its own inside its family: the note's guards
        // report what it lacks (a reason, a reference) instead.
        const unmarked =
          (name === 'invoice' && (folder === 'credit-note' || folder === 'debit-note')) ||
          (name === 'support-document' && folder === 'support-adjustment');
        if (unmarked) {
          expect(problems, `${name} in ${folder}`).toEqual([]);
          expect(
            validateDocument(folder, loadRequestFixture(name), CTX).length,
            `${name} in ${folder}`,
          ).toBeGreaterThan(0);
          continue;
        }
        expect(problems.length, `${name} in ${folder}`).toBeGreaterThan(0);
        expect(
          problems.every((p) => p.code === 'EDOC_VALIDATE_WRONG_FOLDER'),
          `${name} in ${folder}: ${JSON.stringify(problems)}`,
        ).toBe(true);
        // A family's own fields may not say which kind of the family (IssuerParty: any E1 document).
        expect(problems[0].message, `${name} in ${folder}`).toMatch(
          new RegExp(
            `drop it in (the [a-z-]+ or )*the ${home}( or the [a-z-]+)* folder instead of the ${folder} folder$`,
          ),
        );
      }
    }
  });

  it('a payroll in the invoice folder is named as payroll by its own fields', () => {
    const problems = validateDocument('invoice', loadRequestFixture('payroll'), CTX);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'EDOC_VALIDATE_WRONG_FOLDER', path: 'TipoNota' });
    expect(problems[0].message).toMatch(
      /^TipoNota, Trabajador, Empleador, Devengados, Deducciones, NumeroSecuenciaXML, ComprobanteTotal make this a payroll document, not an invoice/,
    );
    const plain = loadRequestFixture('invoice');
    remove(plain, 'IssuerParty');
    expect(wrongFolder('invoice', plain)).toEqual([]);
  });
});

describe('hostile content in a sign', () => {
  it('a huge or structured reason is quoted short in the message and in the value', () => {
    const r = loadRequestFixture('invoice');
    edit(r, 'ReasonCredit', `${'x'.repeat(5000)}\n=cmd`);
    const [p] = validateDocument('invoice', r, CTX);
    expect(p.code).toBe('EDOC_VALIDATE_WRONG_FOLDER');
    expect(p.message.length).toBeLessThan(250);
    expect(p.value?.length).toBeLessThanOrEqual(100);
    edit(r, 'ReasonCredit', { nested: Array(1000).fill('y') });
    const [q] = validateDocument('invoice', r, CTX);
    expect(q.message.length).toBeLessThan(250);
    expect(q.value?.length).toBeLessThanOrEqual(100);
  });
});
