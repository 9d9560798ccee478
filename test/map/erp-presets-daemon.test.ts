/**
 * The shipped ERP presets (config/mappings/erp/) through the real daemon (a child process) and the
 * emulator over HTTP, each on its sample export under examples/erp/. Every document the emulator
 * issued is compared with figures computed by hand below (the arithmetic is in the comments), and
 * the rows a preset must not issue (drafts, cancelled, refunds) are checked to be absent.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli, type Project, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

const ROOT = path.join(import.meta.dirname, '../..');
const preset = (name: string): string => path.join(ROOT, 'config/mappings/erp', name);
const sample = (...parts: string[]): Promise<Buffer> => readFile(path.join(ROOT, 'examples/erp', ...parts));

let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
  ({ emulator, project } = await resources.daemonProject({
    kinds: {
      invoice: { mapping: preset('odoo-invoice.yaml') },
    },
  }));
  await resources.startDaemon(project);
}, 240_000);

interface Tax { TaxCategory: string; TaxPercentage?: string; TaxableAmount?: string; TaxAmount: string }
interface InvoiceLine { Quantity: string; UnitPrice: string; GrossAmount: string; NetAmount: string; TaxSubTotals?: Tax[] }
interface Invoice {
  CustomerParty: { Name: string; Identification: { DocumentNumber: string; DocumentType: string } };
  Lines: InvoiceLine[]; TaxTotals?: Tax[];
  Total: { GrossAmount: string; TaxableAmount: string; PayableAmount: string };
}

/** What the test compares of an issued invoice: customer, each line's figures and taxes, the totals. */
function invoiceFigures(r: Invoice): unknown {
  return {
    customer: [r.CustomerParty.Identification.DocumentType, r.CustomerParty.Identification.DocumentNumber],
    lines: r.Lines.map((l) => [l.Quantity, l.UnitPrice, l.GrossAmount, l.NetAmount, (l.TaxSubTotals ?? []).map((t) => `${t.TaxCategory}@${t.TaxPercentage}=${t.TaxAmount}`)]),
    taxes: (r.TaxTotals ?? []).map((t) => `${t.TaxCategory}=${t.TaxAmount}`),
    total: [r.Total.GrossAmount, r.Total.TaxableAmount, r.Total.PayableAmount],
  };
}

describe('shipped ERP presets through the daemon', () => {
  test('odoo-invoice: posted invoices issued whole; draft, cancelled and refund rows are not', async () => {
    await project.drop('invoice', 'odoo-facturas.csv', await sample('odoo', 'odoo-facturas-cliente.csv'));
    const result = await project.finalResult('invoice', 'odoo-facturas.csv', { timeoutMs: 60_000 });
    // rows 5-6 (cancelled, both lines), 7 (draft) and 10 (refund) are skipped
    expect(result.documents.map((d) => [d.key, d.status, d.source, d.errors])).toEqual([
      ['main/invoice/SETP/990000412', 'accepted', { rows: [2, 3, 4] }, []],
      ['main/invoice/SETP/990000414', 'accepted', { rows: [8, 9] }, []],
    ]);
    const issued = await emulator.client.documents({ kind: 'invoice', withRequest: true });
    const byNumber = new Map(issued.map((d) => [d.documentNumber, invoiceFigures(d.request as Invoice)]));
    expect([...byNumber.keys()].sort()).toEqual(['SETP990000412', 'SETP990000414']);
    expect(byNumber.get('SETP990000412')).toEqual({
      customer: ['31', '800197268'], // NIT, "800197268-4" without its check digit
      lines: [
        // 10 × 12,500.00 = 125,000.00; IVA 19 % = 23,750.00
        ['10', '12500.00', '125000.00', '125000.00', ['01@19.00=23750.00']],
        // 4 × 24,336.00 = 97,344.00 − 10 % (9,734.40) = 87,609.60 = 4 × 21,902.40; IVA 5 % = 4,380.48
        ['4', '21902.40', '97344.00', '87609.60', ['01@5.00=4380.48']],
        // 2 × 45,000.00 = 90,000.00; INC 8 % = 7,200.00 (no IVA: excluded from VAT)
        ['2', '45000.00', '90000.00', '90000.00', ['04@8.00=7200.00']],
      ],
      // IVA 23,750.00 + 4,380.48 = 28,130.48; INC 7,200.00
      taxes: ['01=28130.48', '04=7200.00'],
      // 125,000.00 + 87,609.60 + 90,000.00 = 302,609.60 (amount_untaxed); + 28,130.48 + 7,200.00 = 337,940.08 (amount_total)
      total: ['302609.60', '302609.60', '337940.08'],
    });
    expect(byNumber.get('SETP990000414')).toEqual({
      customer: ['31', '860012345'],
      lines: [
        // 1 × 350,000.00, "IVA 0%": exempt, in the taxable base
        ['1', '350000.00', '350000.00', '350000.00', ['01@0.00=0.00']],
        // 3 × 15,000.00 = 45,000.00 − 5 % (2,250.00) = 42,750.00 = 3 × 14,250.00; no tax: excluded
        ['3', '14250.00', '45000.00', '42750.00', []],
      ],
      taxes: ['01=0.00'],
      // 350,000.00 + 42,750.00 = 392,750.00 (amount_untaxed = amount_total); taxable 350,000.00
      total: ['392750.00', '350000.00', '392750.00'],
    });
  }, 120_000);
});
