import { describe, expect, it } from 'vitest';
import {
  contentDifferences,
  contentSummary,
  otherContentMessage,
} from '../../src/kinds/content-summary.js';
import { invoice, payroll } from '../helpers/documents.js';

describe("a document's content summary", () => {
  it('is the same for an unchanged re-export whose ERP wrote a new correlation id or generation time', () => {
    const first = invoice(990_000_001);
    const again = { ...invoice(990_000_001), CorrelationDocumentId: 'ERP-exported-again' };
    expect(contentSummary('invoice', again).digest).toBe(contentSummary('invoice', first).digest);
    const nomina = payroll(1);
    const later = payroll(1);
    (later.InformacionGeneral as Record<string, unknown>).FechaHoraGen = '2026-11-30T23:59:59';
    expect(contentSummary('payroll', later).digest).toBe(contentSummary('payroll', nomina).digest);
  });

  it('names the payable amount, line count, customer and issue date that differ', () => {
    const issued = invoice(990_000_001);
    const now = invoice(990_000_001);
    // the fixture: 3 lines, payable 395901.36, customer 800197268, issued 2026-11-20T10:15:00
    (now.Total as Record<string, string>).PayableAmount = '395901.37';
    (now.Lines as unknown[]).pop();
    now.IssueDate = '2026-11-21T10:15:00';
    (
      now.CustomerParty as { Identification: { DocumentNumber: string } }
    ).Identification.DocumentNumber = '900111222';
    expect(contentSummary('invoice', now).digest).not.toBe(
      contentSummary('invoice', issued).digest,
    );
    expect(
      contentDifferences(contentSummary('invoice', issued), contentSummary('invoice', now)),
    ).toEqual([
      { label: 'payable amount', issued: '395901.36', now: '395901.37' },
      { label: 'customer identification', issued: '800197268', now: '900111222' },
      { label: 'line count', issued: '3', now: '2' },
      { label: 'issue date', issued: '2026-11-20T10:15:00', now: '2026-11-21T10:15:00' },
    ]);
  });

  it('tells a change no summary fact shows by its digest alone', () => {
    const issued = invoice(990_000_001);
    const now = invoice(990_000_001);
    ((now.Lines as Record<string, unknown>[])[0].Item as Record<string, string>).Description =
      'Otra descripción';
    const [a, b] = [contentSummary('invoice', issued), contentSummary('invoice', now)];
    expect(b.digest).not.toBe(a.digest);
    expect(contentDifferences(a, b)).toEqual([]);
  });

  it("does not say the customer agrees when only the customer's name changed", () => {
    const issued = invoice(990_000_001);
    const now = invoice(990_000_001);
    (now.CustomerParty as Record<string, unknown>).Name = 'Otro Cliente S.A.S.';
    const [a, b] = [contentSummary('invoice', issued), contentSummary('invoice', now)];
    expect(b.digest).not.toBe(a.digest);
    expect(contentDifferences(a, b)).toEqual([]);
    const message = otherContentMessage('invoice', 'SETP990000001', 'ventas.csv', []);
    expect(message).toContain('customer identification, line count and issue date agree');
    expect(message).toContain('such as a name');
    expect(message).not.toMatch(/\bcustomer,/);
  });
});

describe('the correction a report advises for a document issued with other content', () => {
  const raised = [{ label: 'payable amount', issued: '1190.00', now: '2380.00' }];

  it('completes a credit note that credited too little with another credit note, never a debit note', () => {
    // NC300 credited 1,190.00; the corrected export says 2,380.00: the customer is owed 1,190.00 more
    const message = otherContentMessage('credit-note', 'NC300', 'nc300.csv', raised);
    expect(message).not.toContain('a debit note (a higher amount)');
    expect(message).toContain('another credit note for the credit still missing');
    expect(message).toContain('a debit note for the credit given in excess');
    expect(message).toContain('referencing the invoice NC300 corrected');
  });

  it('completes a debit note that charged too little with another debit note', () => {
    const message = otherContentMessage('debit-note', 'ND7', 'nd.csv', raised);
    expect(message).not.toContain('issue a credit note (a lower amount');
    expect(message).toContain('another debit note for the charge still missing');
    expect(message).toContain('referencing the invoice ND7 corrected');
  });

  it('points an adjustment note at the support document it corrected', () => {
    const message = otherContentMessage('support-adjustment', 'NAS4', 'ajustes.csv', raised);
    expect(message).toContain('referencing the support document NAS4 corrected');
  });

  it('keeps the credit or debit note for an invoice', () => {
    const message = otherContentMessage('invoice', 'SETP990000001', 'ventas.csv', raised);
    expect(message).toContain(
      'issue a credit note (a lower amount, or to annul it) or a debit note (a higher amount) referencing SETP990000001',
    );
  });
});
