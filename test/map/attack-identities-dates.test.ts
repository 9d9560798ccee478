/**
 * Outsider's attacks on the legal facts of a document (who the customer is, when it falls due), each
 * through the real CLI or daemon on a real project and the emulator over HTTP: what the emulator stored
 * is compared with what the export meant.
 *
 * NIT 800197268 has check digit 4 (modulo 11: 8·41 + 0·37 + 0·29 + 1·23 + 9·19 + 7·17 + 2·13 + 6·7 +
 * 8·3 = 733, 733 mod 11 = 7, 11 − 7 = 4).
 * - `800197268 4` / `800.197.268.4` (the check digit after a space or a dot, as an ERP that joins the NIT
 *   and DV columns writes it) were issued to the customer 8001972684, another NIT;
 * - `800197268 5` (the same with a wrong digit) was issued to 8001972685, unchecked;
 * - `800197268-04` was issued to 80019726804;
 * - a due date before the issue date (`vence` 10/11/2026 on an invoice of 18/11/2026: swapped or mistyped
 *   columns) was issued with those payment terms;
 * - SAP Business One's `FederalTaxID`: the preset kept what stands before the first dash, so a wrong
 *   check digit (`800197268-5`) was issued unchecked to 800197268, and a foreign id `PA-123456` was
 *   issued to the customer "PA".
 * - an Odoo credit note of 2026-11-21 reversing an invoice dated 2026-11-25 (`reversed_entry_id/
 *   invoice_date`: an invoice that did not exist yet, so the wrong invoice or a mistyped date) was issued.
 * - a support adjustment note with no lines and no correction code, whose concept says "Rebaja o
 *   descuento parcial" (a partial discount whose lines were left out), was sent, and the service's
 *   default code 2 annulled the whole support document DS101 (20 × 95,000.00 + 180,000.00 + 19 %).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli, type ResultJson } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { sale, toCsv } from './helpers.js';

const root = path.join(import.meta.dirname, '../..');
const resources = fileResources();

beforeAll(async () => {
  await buildCli();
}, 240_000);

interface Stored {
  SerieNumber: string;
  DueDate: string;
  CustomerParty: { Identification: { DocumentNumber: string } };
  Total: { PayableAmount: string };
}

/** What the emulator stored of each invoice: number, customer id, the fields `more` picks, payable. */
function storedFacts(docs: { request?: unknown }[], more: (r: Stored) => string[] = () => []) {
  return docs.map((d) => {
    const r = d.request as Stored;
    return [
      r.SerieNumber,
      r.CustomerParty.Identification.DocumentNumber,
      ...more(r),
      r.Total.PayableAmount,
    ];
  });
}

/** Each document's number, status and its errors' code and export column. */
function outcomes(result: ResultJson | undefined): unknown[] {
  return (result?.documents ?? []).map((d) => [
    d.key,
    d.status,
    d.errors.map((e) => [e.code, e.field]),
  ]);
}

describe('who the customer is and when the document falls due', () => {
  test('a check digit after a space or a dot is checked and dropped, a due date before the issue date is refused', async () => {
    const made = await resources.daemonProject({
      kinds: { invoice: { mapping: path.join(root, 'config/mappings/sales.csv.yaml') } },
    });
    const columns = ['vence', ...Object.keys(sale('1', '1'))];
    // every document: 1 × 1,000.00 + 19 % 190.00 = 1,190.00
    const rows = [
      sale('990000601', '1', { cliente_doc: '800197268 4' }),
      sale('990000602', '1', { cliente_doc: '800.197.268.4' }),
      sale('990000603', '1', { cliente_doc: '800197268 5' }),
      sale('990000604', '1', { cliente_doc: '800197268-04' }),
      sale('990000605', '1', { vence: '10/11/2026' }),
      sale('990000606', '1', { vence: '18/11/2026' }),
    ];
    const file = path.join(made.project.dir, 'ventas.csv');
    await writeFile(file, toCsv(rows, { columns }));
    const run = await made.cli(['submit', file, '--kind', 'invoice'], { timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const result = await made.project.result('invoice', 'ventas.csv');
    expect(outcomes(result)).toEqual([
      ['main/invoice/SETP/990000601', 'accepted', []],
      ['main/invoice/SETP/990000602', 'accepted', []],
      // refused while mapped: no key (no request was made of it)
      [null, 'invalid', [['EDOC_VALIDATE_CHECK_DIGIT', 'cliente_doc']]],
      [null, 'invalid', [['EDOC_MAP_BAD_NUMBER', 'cliente_doc']]],
      ['main/invoice/SETP/990000605', 'invalid', [['EDOC_VALIDATE_DUE_DATE', 'vence, fecha']]],
      ['main/invoice/SETP/990000606', 'accepted', []],
    ]);
    const messages = (result?.documents ?? []).flatMap((d) => d.errors.map((e) => e.message));
    expect(messages).toEqual([
      '"800197268 5" in column "cliente_doc" ends in a lone digit 5 after a space or a dot, which is no group of thousands; as a check digit it is not 800197268\'s (4), and glued on it would be another number: write the number alone, or its check digit after a dash',
      '"800197268-04" in column "cliente_doc" has a dash inside the number: a check digit is one digit after a final dash (800197268-4), and glued together the pieces would be another number; write the number alone, or its check digit after a dash',
      "The document falls due (DueDate 2026-11-10) before it is issued (IssueDate 2026-11-18): two date columns swapped, a mistyped date, or a month-first date read day-first (the mapping's format.date)? It is not sent",
    ]);
    const stored = await made.emulator.client.documents({ kind: 'invoice', withRequest: true });
    expect(storedFacts(stored, (r) => [r.DueDate])).toEqual([
      ['990000601', '800197268', '2026-11-18T00:00:00', '1190.00'],
      ['990000602', '800197268', '2026-11-18T00:00:00', '1190.00'],
      ['990000606', '800197268', '2026-11-18T00:00:00', '1190.00'],
    ]);
  });

  test('SAP Business One: the FederalTaxID check digit is checked, a foreign id keeps its letters', async () => {
    const preset = await readFile(
      path.join(root, 'config/mappings/erp/sap-b1-invoice.yaml'),
      'utf8',
    );
    const dir = await resources.tempDir();
    const mapping = path.join(dir, 'sap-b1-invoice.yaml');
    expect(preset).toContain('waitMs: 600000');
    await writeFile(mapping, preset.replace('waitMs: 600000', 'waitMs: 1500'));
    const { emulator, project } = await resources.runningDaemon({
      kinds: { invoice: { mapping } },
    });
    const sample = (name: string): Promise<string> =>
      readFile(path.join(root, 'examples/erp/sap-b1', name), 'utf8');
    const header = (await sample('Documents.csv'))
      .replace('800197268-4', '800197268-5')
      .replace(',1020304050,', ',PA-123456,');
    expect(header).toContain('PA-123456');
    await project.drop('invoice', 'Documents.csv', header);
    await project.drop('invoice', 'Document_Lines.csv', await sample('Document_Lines.csv'));
    const result = await project.finalResult('invoice', 'Documents+Document_Lines.csv', {
      timeoutMs: 60_000,
    });
    expect(outcomes(result)).toEqual([
      // a document refused while mapped has no key (its number was never read into a request)
      [null, 'invalid', [['EDOC_VALIDATE_CHECK_DIGIT', 'FederalTaxID']]],
      ['main/invoice/SETP/990000302', 'accepted', []],
    ]);
    const stored = await emulator.client.documents({ kind: 'invoice', withRequest: true });
    // 1 × 12,500.00 less the document's 5 % (625.00) = 11,875.00 + 19 % 2,256.25 = 14,131.25
    expect(storedFacts(stored)).toEqual([['990000302', 'PA123456', '14131.25']]);
  });

  test('a support adjustment note without lines or code whose concept is not an annulment is refused, DS101 stays issued', async () => {
    const made = await resources.daemonProject({
      kinds: {
        'support-document': {
          mapping: path.join(root, 'config/mappings/support-document.csv.yaml'),
        },
        'support-adjustment': {
          mapping: path.join(root, 'config/mappings/support-adjustment.csv.yaml'),
        },
      },
    });
    const original = path.join(root, 'examples/support-documents.csv');
    const first = await made.cli(['submit', original, '--kind', 'support-document'], {
      timeoutMs: 60_000,
    });
    expect(first.code).toBe(0);
    const shipped = (await readFile(path.join(root, 'examples/support-adjustments.csv'), 'latin1'))
      .split(/\r?\n/)
      .filter((l) => l !== '');
    // the annulment row of the example (NAS 103) with its code and concept changed
    const cells = shipped[2].split(';');
    expect(cells.slice(0, 10).join(';')).toBe(
      'NAS;103;;22/11/2026;11:05:00;DS101;;20/11/2026;2;Anulación',
    );
    // the test emulator's notes range is NDS (the shipped seed's NAS)
    cells[0] = 'NDS';
    cells[1] = '104';
    cells[8] = '';
    cells[9] = 'Rebaja o descuento parcial';
    const file = path.join(made.project.dir, 'ajustes.csv');
    await writeFile(file, Buffer.from(`${shipped[0]}\r\n${cells.join(';')}\r\n`, 'latin1'));
    const run = await made.cli(['submit', file, '--kind', 'support-adjustment'], {
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(1);
    const result = await made.project.result('support-adjustment', 'ajustes.csv');
    expect(outcomes(result)).toEqual([
      ['main/support-adjustment/NDS/104', 'invalid', [['EDOC_VALIDATE_KIND', 'concepto']]],
    ]);
    expect(result?.documents[0].errors[0].message).toBe(
      'A note without Lines and without CorrectionConceptCode annuls the whole referenced document (code 2), but its CorrectionConcept "Rebaja o descuento parcial" does not say annulment; it is not sent: add the lines and the code the note adjusts, or write the code 2 (annulment)',
    );
    expect(await made.emulator.client.documents({ kind: 'support-adjustment' })).toEqual([]);
  });

  test('an Odoo credit note reversing an invoice dated after the note is refused', async () => {
    const made = await resources.daemonProject({
      kinds: {
        'credit-note': { mapping: path.join(root, 'config/mappings/erp/odoo-credit-note.yaml') },
      },
    });
    const header = (
      await readFile(path.join(root, 'examples/erp/odoo/odoo-notas-credito.csv'), 'utf8')
    ).split(/\r?\n/)[0];
    // each: 2 × 12,500.00 = 25,000.00 + 19 % 4,750.00 = 29,750.00
    const note = (name: string, reversedDate: string): string =>
      `${name},Distribuidora Andina S.A.S.,800197268-4,NIT,,2026-11-21,2026-11-21,out_refund,posted,,` +
      `SETP990000412,${reversedDate},,Devolución parcial,[7702001] Café,Café,2.0,12500.0,0.0,IVA 19%,` +
      '25000.0,25000.0,4750.0,29750.0';
    const file = path.join(made.project.dir, 'notas.csv');
    await writeFile(
      file,
      `${[header, note('NC41', '2026-11-25'), note('NC42', '2026-11-18')].join('\n')}\n`,
    );
    const run = await made.cli(['submit', file, '--kind', 'credit-note'], { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    const result = await made.project.result('credit-note', 'notas.csv');
    expect(outcomes(result)).toEqual([
      [
        'main/credit-note/NC/41',
        'invalid',
        [['EDOC_VALIDATE_REFERENCE_DATE', 'reversed_entry_id/invoice_date']],
      ],
      ['main/credit-note/NC/42', 'accepted', []],
    ]);
    const stored = await made.emulator.client.documents({
      kind: 'credit-note',
      withRequest: true,
    });
    expect(
      stored.map((d) => {
        const r = d.request as Stored & { DocumentReferences: { IssueDate: string }[] };
        return [r.SerieNumber, r.DocumentReferences[0].IssueDate, r.Total.PayableAmount];
      }),
    ).toEqual([['42', '2026-11-18', '29750.00']]);
  });
});
