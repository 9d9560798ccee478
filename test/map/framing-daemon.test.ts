/**
 * Real exports through the real daemon (a child process) and the emulator over HTTP: a Siigo-style
 * one-to-many sales export with title lines and a totals footer, a payroll export with one row per
 * concept below title lines, and a POS receipts-by-item export with a payment row and a cancelled
 * receipt, each through its mapping in test/fixtures/erp; the amounts the emulator issued are the
 * ones computed by hand in the fixtures' tests (framing, concepts, row-rules).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Project, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';

const ERP = path.join(import.meta.dirname, '../fixtures/erp');
let emulator: TestEmulator;
let project: Project;
const resources = fileResources();

beforeAll(async () => {
  ({ emulator, project } = await resources.runningDaemon({
    kinds: {
      invoice: { mapping: path.join(ERP, 'siigo-ventas.yaml') },
      payroll: { mapping: path.join(ERP, 'nomina-por-concepto.yaml') },
      pos: { mapping: path.join(ERP, 'pos-recibos-por-articulo.yaml') },
    },
  }));
}, 120_000);

type Issued = Record<string, unknown> & { Total?: { PayableAmount: string }; Lines?: unknown[] };

describe('real export layouts through the daemon', () => {
  test('a one-to-many sales export is issued whole: every line of every invoice, the footer ignored', async () => {
    await project.drop(
      'invoice',
      'ventas-noviembre.csv',
      await readFile(path.join(ERP, 'siigo-ventas-detallado.csv')),
    );
    const result = await project.finalResult('invoice', 'ventas-noviembre.csv', {
      timeoutMs: 60_000,
    });
    expect(result.documents.map((d) => [d.key, d.status, d.source])).toEqual([
      ['main/invoice/SETP/990000801', 'accepted', { rows: [6, 7, 8] }],
      ['main/invoice/SETP/990000802', 'accepted', { rows: [9] }],
    ]);
    const issued = await emulator.client.documents({ kind: 'invoice', withRequest: true });
    const byNumber = new Map(issued.map((d) => [d.documentNumber, d.request as Issued]));
    // 182,200.00 gross + 24,510.00 VAT = 206,710.00 over 3 lines; 12,500.00 + 2,375.00 = 14,875.00
    expect([
      byNumber.get('SETP990000801')?.Total?.PayableAmount,
      byNumber.get('SETP990000801')?.Lines?.length,
    ]).toEqual(['206710.00', 3]);
    expect(byNumber.get('SETP990000802')?.Total?.PayableAmount).toBe('14875.00');
  }, 90_000);

  test("the retry file of a one-to-many export keeps its title lines and header, then the refused invoice's rows", async () => {
    const original = await readFile(path.join(ERP, 'siigo-ventas-detallado.csv'));
    // invoice 990000803's second item row says "dos" where a quantity belongs: it alone is refused
    const text = original
      .toString('latin1')
      .replaceAll('990000801', '990000803')
      .replaceAll('990000802', '990000804')
      .replace(';Azúcar 1 kg;4;', ';Azúcar 1 kg;dos;');
    await project.drop('invoice', 'ventas-dos.csv', Buffer.from(text, 'latin1'));
    const result = await project.finalResult('invoice', 'ventas-dos.csv', { timeoutMs: 60_000 });
    expect(result.documents.map((d) => [d.status, d.source])).toEqual([
      ['invalid', { rows: [6, 7, 8], erpKey: 'SETP990000803' }],
      ['accepted', { rows: [9] }],
    ]);
    const lines = text.split('\r\n');
    // title lines and header (rows 1-5), then the refused invoice's rows 6-8; not the footer
    const retry = await readFile(path.join(project.outbox('invoice'), 'ventas-dos.retry.csv'));
    expect(retry.equals(Buffer.from(`${lines.slice(0, 8).join('\r\n')}\r\n`, 'latin1'))).toBe(true);
  }, 90_000);

  test('a payroll export with one row per concept is issued as one payroll per employee', async () => {
    await project.drop(
      'payroll',
      'nomina-octubre.csv',
      await readFile(path.join(ERP, 'nomina-por-concepto.csv')),
    );
    const result = await project.finalResult('payroll', 'nomina-octubre.csv', {
      timeoutMs: 60_000,
    });
    expect(result.documents.map((d) => [d.status, d.source, d.errors])).toEqual([
      ['accepted', { rows: [5, 6, 7, 8, 9, 10] }, []],
      ['accepted', { rows: [11, 12, 13, 14, 15] }, []],
    ]);
    const issued = (await emulator.client.documents({ kind: 'payroll', withRequest: true })).map(
      (d) => d.request as Issued,
    );
    // 2,241,666.67 − 160,000.00 = 2,081,666.67; 6,500,000.00 − 960,350.00 = 5,539,650.00
    expect(
      issued.map((r) => [r.DevengadosTotal, r.DeduccionesTotal, r.ComprobanteTotal]).sort(),
    ).toEqual([
      ['2241666.67', '160000.00', '2081666.67'],
      ['6500000.00', '960350.00', '5539650.00'],
    ]);
  }, 90_000);

  test('a POS receipts-by-item export: the cancelled receipt is not issued, the payment comes from the payment row', async () => {
    await project.drop(
      'pos',
      'recibos-20-11.csv',
      await readFile(path.join(ERP, 'pos-recibos-por-articulo.csv')),
    );
    const result = await project.finalResult('pos', 'recibos-20-11.csv', { timeoutMs: 60_000 });
    expect(result.documents.map((d) => [d.status, d.source, d.errors])).toEqual([
      // the service numbers POS documents: the report names them by the export's receipt number
      ['accepted', { rows: [2, 3, 4], erpKey: '1001' }, []],
      ['accepted', { rows: [7, 8], erpKey: '1003' }, []],
    ]);
    // the emulator keeps the E3 upload: its form fields and the document content
    const issued = (await emulator.client.documents({ kind: 'pos', withRequest: true })).map(
      (d) => (d.request as { content: Record<string, Record<string, unknown>> }).content,
    );
    // 9,000 + 1,710 + 3,600 + 180 = 14,490 (paid in cash, code 10); 6,000 + 1,140 = 7,140 (card, 48)
    expect(
      issued
        .map((r) => [
          r.totales.valorNeto,
          (r.documento.formaPago as { codigoMedio: string }[])[0].codigoMedio,
        ])
        .sort(),
    ).toEqual([
      [14490, '10'],
      [7140, '48'],
    ]);
  }, 90_000);
});
