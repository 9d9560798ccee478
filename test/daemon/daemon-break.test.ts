/**
 * Outsider attacks on issue 12 (items 1, 5, 8/9) through the real daemon (a
 * child process) against the emulator over HTTP, each one a defect found and
 * fixed:
 * - a configured API key written with JSON `\u` escapes is the key once the
 *   JSON is parsed: it must not reach the service (EDOC_READ_SECRET), though
 *   the file's text never shows it literally;
 * - a credit note whose ReasonDebit is blank is a credit note to the service
 *   (ReasonCredit has a value): not a wrong-folder / contradictory document;
 * - a number clash (not issued, needs a new number) is listed by `status`,
 *   not only counted among the harmless duplicates;
 * - a configured key as a column name of a CSV header is not kept in the
 *   ledger (the header of the file) nor written to the retry file.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { ServiceClient } from '../../src/service/client.js';
import type { InvoiceRequest } from '../../src/service/schemas/index.js';
import { runCli } from '../helpers/cli-runner.js';
import { COMPANY_MAIN, type Project, ROOT, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { creditNote, invoice, jsonText } from '../helpers/documents.js';
import { SALES_HEADER, salesRow } from '../helpers/torture-project.js';

let emulator: TestEmulator;
let project: Project;

const resources = fileResources();

beforeAll(async () => {
  const sales = { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') };
  ({ emulator, project } = await resources.runningDaemon({
    retry: { maxAttempts: 2 },
    kinds: { invoice: sales },
  }));
}, 120_000);

/** Requests the emulator received on an operation, whatever their answer. */
async function requestsTo(op: string): Promise<number> {
  return Object.values((await emulator.client.stats()).requests[op] ?? {}).reduce(
    (a, b) => a + b,
    0,
  );
}

/** `text` with every character as a JSON `\uXXXX` escape. */
function unicodeEscaped(text: string): string {
  return [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
}

describe('a configured key hidden by JSON escapes (issue 12 item 8)', () => {
  test('an invoice whose description holds the company key as \\u escapes is invalid EDOC_READ_SECRET and never sent', async () => {
    const doc = invoice(990_000_401, COMPANY_MAIN);
    const lines = doc.Lines as { Item: { Description: string } }[];
    lines[0].Item.Description = 'KEYMARK';
    const text = JSON.stringify(doc).replace(
      'KEYMARK',
      `note ${unicodeEscaped(COMPANY_MAIN.apiKey)}`,
    );
    expect(text).not.toContain(COMPANY_MAIN.apiKey);
    await project.drop('invoice', 'escaped-key.json', text);
    const result = await project.finalResult('invoice', 'escaped-key.json');
    expect(result.counts).toMatchObject({ total: 1, invalid: 1, accepted: 0 });
    expect(result.documents[0].errors.map((e) => e.code)).toContain('EDOC_READ_SECRET');
    expect(await requestsTo('E1')).toBe(0);
    expect(await emulator.client.documents()).toEqual([]);
    // kept nowhere, escaped or not: the ledger's copy and the retry file hold [redacted] instead
    const escaped = unicodeEscaped(COMPANY_MAIN.apiKey);
    const retry = await readFile(
      project.resultPath('invoice', 'escaped-key.json').replace(/\.result\.json$/, '.retry.json'),
      'utf8',
    );
    expect(retry).toContain('note [redacted]');
    expect(retry).not.toContain(escaped);
    const bodies = project.ledgerQuery<{ raw: string }>(
      `SELECT b.raw FROM document_bodies b JOIN documents d ON d.id = b.id
      JOIN files f ON f.id = d.file_id WHERE f.name = ?`,
      'escaped-key.json',
    );
    expect(bodies).toHaveLength(1);
    expect(bodies[0].raw).not.toContain(escaped);
  });
});

describe('a blank reason is no sign of another kind (issue 12 item 5)', () => {
  test('credit notes with ReasonDebit "" and "  " beside their ReasonCredit are sent and accepted as credit notes', async () => {
    const referred = invoice(990_000_402, COMPANY_MAIN);
    await project.drop('invoice', 'referred.json', jsonText([referred]));
    expect((await project.finalResult('invoice', 'referred.json')).counts).toMatchObject({
      accepted: 1,
    });
    const empty = { ...creditNote(402, 'SETP990000402'), ReasonDebit: '' };
    const blank = { ...creditNote(403, 'SETP990000402'), ReasonDebit: '  ' };
    await project.drop('credit-note', 'blank-debit.json', jsonText([empty, blank]));
    const result = await project.finalResult('credit-note', 'blank-debit.json');
    expect(result.documents.map((d) => [d.status, d.errors.map((e) => e.code)])).toEqual([
      ['accepted', []],
      ['accepted', []],
    ]);
    expect(
      (await emulator.client.documents({ kind: 'credit-note' })).map((d) => d.number).sort(),
    ).toEqual(['402', '403']);
  });
});

describe('status shows a number clash (issue 12 item 1)', () => {
  test('an invoice whose number another system issued is listed by status and status --json with its key and the clash error', async () => {
    const client = new ServiceClient({ baseUrl: emulator.url, timeoutMs: 5_000 });
    try {
      const other = invoice(990_000_404, COMPANY_MAIN);
      other.CorrelationDocumentId = 'OTRO-SISTEMA';
      expect(
        (
          await client.issueInvoice(
            { id: COMPANY_MAIN.id, apiKey: COMPANY_MAIN.apiKey },
            other as unknown as InvoiceRequest,
          )
        ).outcome.kind,
      ).toBe('accepted');
    } finally {
      await client.close();
    }
    await project.drop('invoice', 'taken.json', jsonText([invoice(990_000_404, COMPANY_MAIN)]));
    const result = await project.finalResult('invoice', 'taken.json');
    expect(result.documents[0]).toMatchObject({
      status: 'duplicate',
      errors: [expect.objectContaining({ code: 'EDOC_SERVICE_NUMBER_CLASH' })],
    });
    const text = await runCli(project, ['status']);
    expect(text.code).toBe(0);
    const section = text.stdout.slice(text.stdout.indexOf('Number clashes'));
    expect(section).toMatch(/^Number clashes .*: 1$/m);
    expect(section).toContain('main/invoice/SETP/990000404');
    expect(section).toContain(
      'The number SETP990000404 is already used at the service by another document',
    );
    const json = JSON.parse((await runCli(project, ['status', '--json'])).stdout) as {
      clashes: { key: string; lastError: string }[];
    };
    expect(json.clashes.map((c) => c.key)).toEqual(['main/invoice/SETP/990000404']);
  });
});

describe('a configured key as a CSV column name (issue 12 item 8)', () => {
  test('the ledger keeps the header with the key redacted, and the retry file shows [redacted] in its place', async () => {
    const header = `${SALES_HEADER};${COMPANY_MAIN.apiKey}`;
    const rows = [salesRow(990_000_405), salesRow(990_000_406, 1, { cantidad: 'diez' })].map(
      (r) => `${r};x`,
    );
    await project.drop('invoice', 'key-column.csv', `${[header, ...rows].join('\r\n')}\r\n`);
    const result = await project.finalResult('invoice', 'key-column.csv');
    expect(result.counts).toMatchObject({ total: 2, accepted: 1, invalid: 1 });
    const files = project.ledgerQuery<{ header: string }>(
      'SELECT header FROM files WHERE name = ?',
      'key-column.csv',
    );
    expect(files).toHaveLength(1);
    expect(files[0].header).toContain('ref_cufe;[redacted]');
    expect(files[0].header).not.toContain(COMPANY_MAIN.apiKey);
    const retry = await readFile(
      project.resultPath('invoice', 'key-column.csv').replace(/\.result\.json$/, '.retry.csv'),
      'utf8',
    );
    expect(retry).toContain('ref_cufe;[redacted]');
    expect(retry).toContain('diez');
    expect(retry).not.toContain(COMPANY_MAIN.apiKey);
  });
});
