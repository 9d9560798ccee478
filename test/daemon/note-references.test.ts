/**
 * A credit or debit note corrects a document that was issued. One whose referenced document the ledger
 * holds as invalid or rejected (never issued) is held `invalid` with EDOC_LEDGER_REFERENCE_NOT_ISSUED,
 * naming the document and its state; one whose reference the ledger does not know is sent, with a
 * EDOC_LEDGER_REFERENCE_UNKNOWN warning (it may reference a document issued before the bridge).
 * Real daemon, real emulator.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN, ROOT } from '../helpers/daemon-harness.js';
import {
  BUILD_TIMEOUT_MS,
  daemonTest as test,
  type DaemonFixtures,
} from '../helpers/daemon-fixture.js';
import { creditNote, debitNote, invoice, jsonText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

interface Problem {
  code?: string;
  field?: string;
  value?: string;
  message: string;
}

/** The shipped sales mapping: its header, a customer's cells, an invoice row and a credit note row. */
const SALES = path.join(ROOT, 'config/mappings/sales.csv.yaml');
const HEADER =
  'prefijo;numero;fecha;hora;cliente_tipo_doc;cliente_doc;cliente_nombre;descripcion;cantidad;precio_unitario;iva;motivo;ref_documento;ref_fecha';
const CUSTOMER = '31;800.197.268-4;Distribuidora Andina S.A.S.';

function salesInvoice(n: number, price = '12.500,00'): string {
  return `SETP;${n};18/11/2026;09:15:00;${CUSTOMER};Café;1;${price};19;;;`;
}

/** `count` invoices from SETP`first`, the one at `badAt` priced with a decimal point: a file refused whole. */
function otherConvention(first: number, count: number, badAt: number): string {
  const rows = Array.from({ length: count }, (_, i) =>
    salesInvoice(first + i, i === badAt ? '12.50' : '12.500,00'),
  );
  return `${HEADER}\n${rows.join('\n')}\n`;
}

/** Credit note NC`n` naming SETP`ref`. */
function salesNote(n: number, ref: number): string {
  return `NC;${n};21/11/2026;10:00:00;${CUSTOMER};Devolución café;1;12.500,00;19;Devolución;SETP${ref};18/11/2026`;
}

/** A daemon for one company whose invoices and credit notes are read with the sales mapping. */
async function salesDaemon(daemonProject: DaemonFixtures['daemonProject']) {
  const made = await daemonProject({
    companies: [COMPANY_MAIN],
    kinds: { invoice: { mapping: SALES }, 'credit-note': { mapping: SALES } },
  });
  return { p: made.project, emulator: made.emulator, daemon: await made.startDaemon() };
}

describe('notes that reference a document the ledger knows', () => {
  test('a credit note referencing an invoice the ledger holds as invalid is held invalid naming it; an unknown reference is sent with a warning', async ({
    daemonProject,
  }) => {
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({ companies: [COMPANY_MAIN] });
    const daemon = await startDaemon();
    // an invoice whose payable amount does not add up: invalid, never sent
    const broken = invoice(990_700_001);
    (broken.Total as Record<string, string>).PayableAmount = '1.00';
    await p.drop('invoice', 'ventas.json', jsonText([broken]));
    const invoices = await p.finalResult('invoice', 'ventas.json');
    expect(invoices.documents[0].status).toBe('invalid');

    await p.drop('credit-note', 'notas.json', jsonText([creditNote(70_001, 'SETP990700001')]));
    await p.drop('debit-note', 'notas-debito.json', jsonText([debitNote(70_002, 'SETP990799999')]));
    const notes = await p.finalResult('credit-note', 'notas.json');
    const held = notes.documents[0] as unknown as { status: string; errors: Problem[] };
    expect(held.status).toBe('invalid');
    expect(held.errors).toEqual([
      {
        code: 'EDOC_LEDGER_REFERENCE_NOT_ISSUED',
        field: 'DocumentReferences',
        value: 'SETP990700001',
        message:
          'Not sent: it references SETP990700001, which the ledger holds as invalid (ventas.json): it was never issued, so there ' +
          'is nothing for this note to correct. Issue the corrected document itself, or reference the document that was issued.',
      },
    ]);
    const line = await daemon.waitForLog((l) => l.code === 'EDOC_LEDGER_REFERENCE_NOT_ISSUED');
    expect(line).toMatchObject({ level: 'error', status: 'invalid', file: 'notas.json' });

    // a reference the ledger never saw: sent, and said
    const debit = await p.finalResult('debit-note', 'notas-debito.json');
    expect(debit.documents[0].status).toBe('accepted');
    const warn = await daemon.waitForLog((l) => l.code === 'EDOC_LEDGER_REFERENCE_UNKNOWN');
    expect(warn).toMatchObject({
      level: 'warn',
      file: 'notas-debito.json',
      references: ['SETP990799999'],
    });

    const issued = (await emulator.client.issued()).map((d) => `${d.kind}/${d.documentNumber}`);
    expect(issued).toEqual([expect.stringMatching(/^debit-note\//)]);
    expect((await daemon.stop()).code).toBe(0);
  }, 120_000);

  test('an invoice the mapping refused has no key, yet a note naming its number, in its file or a later one, is held', async ({
    daemonProject,
  }) => {
    // the shipped sales mapping, and the same routed by a `tipo` column (invoices and notes in one export)
    const sales = path.join(ROOT, 'config/mappings/sales.csv.yaml');
    const dir = await mkdtemp(path.join(tmpdir(), 'note-refs-'));
    const mixed = path.join(dir, 'sales-mixed.csv.yaml');
    await writeFile(
      mixed,
      `${await readFile(sales, 'utf8')}\nroute:\n  column: tipo\n  values: { FV: invoice, NC: credit-note, ND: debit-note }\n`,
    );
    const {
      project: p,
      emulator,
      startDaemon,
    } = await daemonProject({
      companies: [COMPANY_MAIN],
      kinds: { invoice: { mapping: mixed }, 'credit-note': { mapping: sales } },
    });
    const daemon = await startDaemon();
    const header =
      'prefijo;numero;fecha;hora;cliente_tipo_doc;cliente_doc;cliente_nombre;descripcion;cantidad;precio_unitario;iva;motivo;ref_documento;ref_fecha';
    const customer = '31;800.197.268-4;Distribuidora Andina S.A.S.';
    // SETP990700021: 10 × 12.500,00 at "0,19" (a rate written as a fraction): refused by the mapping
    const invoiceRow = `SETP;990700021;18/11/2026;09:15:00;${customer};Café;10;12.500,00;0,19;;;`;
    const noteRow = (n: number): string =>
      `NC;${n};21/11/2026;10:00:00;${customer};Devolución café;2;12.500,00;19;Devolución;SETP990700021;18/11/2026`;
    await p.drop(
      'invoice',
      'ventas.csv',
      `tipo;${header}\nFV;${invoiceRow}\nNC;${noteRow(700_021)}\n`,
    );
    const mixedResult = await p.finalResult('invoice', 'ventas.csv');
    expect(mixedResult.documents.map((d) => [d.key, d.status, d.errors[0]?.code])).toEqual([
      [null, 'invalid', 'EDOC_MAP_VAT_RATE'],
      ['main/credit-note/NC/700021', 'invalid', 'EDOC_LEDGER_REFERENCE_NOT_ISSUED'],
    ]);
    await p.drop('credit-note', 'notas.csv', `${header}\n${noteRow(700_022)}\n`);
    const later = await p.finalResult('credit-note', 'notas.csv');
    expect(later.documents.map((d) => [d.status, d.errors[0]?.message])).toEqual([
      [
        'invalid',
        'Not sent: it references SETP990700021, which the ledger holds as invalid (ventas.csv): it was never issued, so there ' +
          'is nothing for this note to correct. Issue the corrected document itself, or reference the document that was issued.',
      ],
    ]);
    expect(await emulator.client.issued()).toEqual([]);
    expect((await daemon.stop()).code).toBe(0);
  }, 120_000);

  test('a note naming an invoice of a file refused whole is held naming that file; once the corrected export is issued, a note naming it goes', async ({
    daemonProject,
  }) => {
    const { p, emulator, daemon } = await salesDaemon(daemonProject);
    // 600 invoices, the one of row 562 priced with a decimal point: the first 500 are stored in a batch
    // of their own, the next 60 are read before that row; the file is refused whole
    await p.drop('invoice', 'ventas.csv', otherConvention(990_710_001, 600, 560));
    const refused = await p.finalResult('invoice', 'ventas.csv', { timeoutMs: 60_000 });
    expect(refused.documents).toEqual([]);
    expect(refused.error?.code).toBe('EDOC_MAP_FORMAT_MISMATCH');

    // SETP990710010 was in the stored batch, SETP990710555 among the rows read before row 562
    await p.drop(
      'credit-note',
      'notas.csv',
      `${HEADER}\n${salesNote(710_101, 990_710_010)}\n${salesNote(710_102, 990_710_555)}\n`,
    );
    const notes = await p.finalResult('credit-note', 'notas.csv');
    const message = (ref: string): string =>
      `Not sent: it references ${ref}, which was in ventas.csv, a file refused whole (EDOC_MAP_FORMAT_MISMATCH): it was never ` +
      'issued, so there is nothing for this note to correct. Drop the corrected export first, then this note again.';
    expect(notes.documents.map((d) => [d.status, d.errors[0]?.code, d.errors[0]?.message])).toEqual(
      [
        ['invalid', 'EDOC_LEDGER_REFERENCE_NOT_ISSUED', message('SETP990710010')],
        ['invalid', 'EDOC_LEDGER_REFERENCE_NOT_ISSUED', message('SETP990710555')],
      ],
    );
    expect(await emulator.client.issued()).toEqual([]);

    // the corrected export (here the two invoices again, read right): issued; the notes naming them go
    await p.drop(
      'invoice',
      'ventas-corregido.csv',
      `${HEADER}\n${salesInvoice(990_710_010)}\n${salesInvoice(990_710_555)}\n`,
    );
    const fixed = await p.finalResult('invoice', 'ventas-corregido.csv');
    expect(fixed.documents.map((d) => d.status)).toEqual(['accepted', 'accepted']);
    await p.drop(
      'credit-note',
      'notas-2.csv',
      `${HEADER}\n${salesNote(710_103, 990_710_010)}\n${salesNote(710_104, 990_710_555)}\n`,
    );
    const later = await p.finalResult('credit-note', 'notas-2.csv');
    expect(later.documents.map((d) => d.status)).toEqual(['accepted', 'accepted']);
    const issued = (await emulator.client.issued()).map((d) => `${d.kind}/${d.documentNumber}`);
    expect(issued.sort()).toEqual([
      'credit-note/NC710103',
      'credit-note/NC710104',
      'invoice/SETP990710010',
      'invoice/SETP990710555',
    ]);
    expect((await daemon.stop()).code).toBe(0);
  }, 180_000);

  test('a note dropped while the file of its invoice is being read is held once that file is refused whole', async ({
    daemonProject,
  }) => {
    const { p, emulator, daemon } = await salesDaemon(daemonProject);
    // 10,000 invoices, the last priced with a decimal point: read for a while, then refused whole
    await p.drop('invoice', 'ventas.csv', otherConvention(990_720_001, 10_000, 9_999));
    // the notes once SETP990720010 is stored (held back) and its file still read
    for (;;) {
      const stored = p.ledgerQuery<{ n: number }>(
        "SELECT count(*) AS n FROM documents WHERE key = 'main/invoice/SETP/990720010'",
      );
      if (stored[0].n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await p.drop('credit-note', 'notas.csv', `${HEADER}\n${salesNote(720_101, 990_720_010)}\n`);
    // Stored while ventas.csv is still read, the note waits for that read (the log line `waitsFor`); the
    // intake may as well store it only after the refusal (the worker's turns): either way it is held.
    const refused = await p.finalResult('invoice', 'ventas.csv', { timeoutMs: 120_000 });
    expect(refused.error?.code).toBe('EDOC_MAP_FORMAT_MISMATCH');
    const notes = await p.finalResult('credit-note', 'notas.csv', { timeoutMs: 30_000 });
    expect(notes.documents.map((d) => [d.status, d.errors[0]?.message])).toEqual([
      [
        'invalid',
        'Not sent: it references SETP990720010, which was in ventas.csv, a file refused whole (EDOC_MAP_FORMAT_MISMATCH): it was never ' +
          'issued, so there is nothing for this note to correct. Drop the corrected export first, then this note again.',
      ],
    ]);
    expect(await emulator.client.issued()).toEqual([]);
    expect((await daemon.stop()).code).toBe(0);
  }, 240_000);
});
