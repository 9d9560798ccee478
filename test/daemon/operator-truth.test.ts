/**
 * What the outbox tells an operator, with the real daemon, emulator and SQLite ledger:
 * - a credit note taken before its invoice's file is sent, and its row in the result file carries
 *   EDOC_LEDGER_REFERENCE_UNKNOWN with what to check (the order of the exports), not only a log line;
 * - a number outside every active range names, in errors.csv's field column, the export's column of the number;
 * - a POS adjustment note re-exported with other content is told to issue another POS adjustment note
 *   referencing the sale, not the sale's (or an invoice's) correction.
 */
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { creditNote, invoice, jsonText, pos } from '../helpers/documents.js';
import { errorsCsvRows, SALES_HEADER, SALES_KINDS, salesRow } from '../helpers/sales-csv.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

describe('the outbox of a note whose invoice the bridge did not know', () => {
  test('a credit note dropped before its invoice: accepted, and its row carries EDOC_LEDGER_REFERENCE_UNKNOWN and the advice', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject({ stableMs: 200 });
    await startDaemon();
    await p.drop('credit-note', 'notas-22.json', jsonText([creditNote(501, 'SETP990800001')]));
    const notes = await p.finalResult('credit-note', 'notas-22.json');
    expect(notes.counts).toMatchObject({ total: 1, accepted: 1 });
    expect(notes.documents[0].warnings).toEqual([
      'EDOC_LEDGER_REFERENCE_UNKNOWN: it references SETP990800001, which the bridge did not know when it took ' +
        'this note (the invoice may have been issued before the bridge was installed); the note is sent as it is. ' +
        "If the invoice's file was dropped after this note's, check the order of the exports: the invoice should " +
        'reach the inbox before the notes that correct it.',
    ]);
    // the invoice's file comes after it
    await p.drop('invoice', 'ventas-22.json', jsonText([invoice(990_800_001)]));
    expect((await p.finalResult('invoice', 'ventas-22.json')).counts.accepted).toBe(1);
  });
});

describe("errors.csv names the export's columns", () => {
  test('a number outside every active range: the field column is the export\'s "numero"', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject({
      stableMs: 200,
      kinds: SALES_KINDS,
    });
    const daemon = await startDaemon();
    await daemon.waitForLog((l) => l.msg === 'watching the inbox');
    // SETP's range is 990000000–995000000: 999000001 is outside it
    await p.drop('invoice', 'fuera.csv', SALES_HEADER + salesRow(999_000_001, '100,00'));
    const r = await p.finalResult('invoice', 'fuera.csv');
    expect(r.counts).toMatchObject({ total: 1, invalid: 1 });
    const rows = await errorsCsvRows(path.join(p.outbox('invoice'), 'fuera.errors.csv'));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(
      /^0;main\/invoice\/SETP\/999000001;invalid;rows 2;EDOC_VALIDATE_OUT_OF_RANGE;numero;999000001;"The number SETP999000001 is outside/,
    );
  });
});

describe('a POS adjustment note issued with other content', () => {
  test('is told to issue another POS adjustment note referencing the sale, in POS words', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject({ stableMs: 200 });
    await startDaemon();
    /** POS<number>, the full return of the sale POS1001. */
    const refund = (number: number, buyer: string): Record<string, unknown> => {
      const doc = pos(number);
      (doc.documento as Record<string, unknown>).documentosAfectados = [
        { numeroDocumento: 'POS1001', fechaEmision: '2026-11-20', codigoCausal: '1' },
      ];
      (doc.adquiriente as Record<string, unknown>).razonSocial = buyer;
      return doc;
    };
    await p.drop(
      'pos',
      'nota-ajuste-credito-22.json',
      jsonText([refund(1301, 'Ana María Pérez Gómez')]),
    );
    expect((await p.finalResult('pos', 'nota-ajuste-credito-22.json')).counts.accepted).toBe(1);
    await p.drop('pos', 'nota-ajuste-credito-23.json', jsonText([refund(1301, 'Ana María Pérez')]));
    const again = await p.finalResult('pos', 'nota-ajuste-credito-23.json');
    expect(again.counts).toMatchObject({ total: 1, duplicate: 1 });
    const error = again.documents[0].errors[0];
    expect(error.code).toBe('EDOC_ISSUED_OTHER_CONTENT');
    expect(error.message).toMatch(
      /To correct it, issue another POS adjustment note referencing the sale POS1301 corrected \(nota-ajuste-credito for credit still missing/,
    );
    expect(error.message).not.toMatch(
      /credit note|debit note|issue a POS adjustment note \(nota-ajuste\) referencing POS1301/,
    );
  });
});
