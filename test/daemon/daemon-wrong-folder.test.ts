/**
 * Issue 12 items 5 and 6 through the real daemon (a child process) against
 * the emulator over HTTP:
 * - item 5: a document whose own content says it is of another kind than its
 *   inbox folder (the shipped examples dropped in the wrong folder, and their
 *   JSON variants) is `invalid`, errors.csv names its rows and the folder it
 *   belongs in, and nothing reaches the emulator;
 * - item 6: a support document numbered outside every range of its prefix, or
 *   under a prefix without a support-document range, is answered 400 in HTTP
 *   200 by the service and reported `invalid` with the service's message;
 *   nothing is issued and it is sent once.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Project, ROOT, type TestEmulator } from '../helpers/daemon-harness.js';
import { fileResources } from '../helpers/daemon-fixture.js';
import { runCli } from '../helpers/cli-runner.js';
import { creditNote, debitNote, jsonText, supportDocument } from '../helpers/documents.js';

let emulator: TestEmulator;
let project: Project;

const sales = { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') };

const resources = fileResources();

beforeAll(async () => {
  ({ emulator, project } = await resources.runningDaemon({
    kinds: { invoice: sales, 'credit-note': sales, 'debit-note': sales },
    retry: { maxAttempts: 2 },
    // the service's own answers to numbers outside its ranges are under test here, not the daemon's local refusal
    alerts: { ranges: { refuseOutOfRange: false } },
  }));
}, 120_000);

/** Requests the emulator received on an operation, whatever their answer. */
async function requestsTo(op: string): Promise<number> {
  return Object.values((await emulator.client.stats()).requests[op] ?? {}).reduce(
    (a, b) => a + b,
    0,
  );
}

async function errorsCsv(kind: string, name: string): Promise<string[][]> {
  const file = project.resultPath(kind, name).replace(/\.result\.json$/, '.errors.csv');
  return parse((await readFile(file, 'utf8')).replace(/^\uFEFF/, ''), {
    delimiter: ';',
  }) as string[][];
}

describe('a document in the wrong folder (issue 12 item 5)', () => {
  test('the credit-note export dropped in inbox/invoice/ is invalid, errors.csv names rows 2-3 and the credit-note folder, nothing is sent', async () => {
    await project.drop(
      'invoice',
      'credit-notes.csv',
      await readFile(path.join(ROOT, 'examples/credit-notes.csv')),
    );
    const result = await project.finalResult('invoice', 'credit-notes.csv');
    expect(result.counts).toMatchObject({ total: 1, invalid: 1, accepted: 0 });
    expect(result.documents[0].errors.map((e) => e.code)).toEqual(
      Array(3).fill('EDOC_VALIDATE_WRONG_FOLDER'),
    );
    const rows = await errorsCsv('invoice', 'credit-notes.csv');
    const header = rows[0];
    const at = (name: string) => header.indexOf(name);
    const problems = rows.slice(1);
    expect(problems.map((r) => [r[at('code')], r[at('source')], r[at('field')]])).toEqual([
      ['EDOC_VALIDATE_WRONG_FOLDER', 'rows 2-3', 'motivo'],
      ['EDOC_VALIDATE_WRONG_FOLDER', 'rows 2-3', 'ref_documento'],
      ['EDOC_VALIDATE_WRONG_FOLDER', 'rows 2-3', 'prefijo'],
    ]);
    expect(
      problems.every(
        (r) =>
          r[at('message')].startsWith('rows 2-3: ') &&
          r[at('message')].includes(
            'drop it in the credit-note folder instead of the invoice folder',
          ),
      ),
    ).toBe(true);
    expect(await requestsTo('E1')).toBe(0);
    expect(await emulator.client.documents()).toEqual([]);
  });

  test('the debit-note export dropped in inbox/credit-note/ is invalid, named a debit note by its ND prefix, nothing is sent', async () => {
    await project.drop(
      'credit-note',
      'debit-notes.csv',
      await readFile(path.join(ROOT, 'examples/debit-notes.csv')),
    );
    const result = await project.finalResult('credit-note', 'debit-notes.csv');
    expect(result.counts).toMatchObject({ total: 1, invalid: 1 });
    const rows = await errorsCsv('credit-note', 'debit-notes.csv');
    expect(rows).toHaveLength(2);
    const message = rows[1][rows[0].indexOf('message')];
    expect(message).toBe(
      'rows 2-3: "ND" in column "prefijo" makes this a debit note, not a credit note; it is not sent: drop it in the debit-note folder instead of the credit-note folder',
    );
    expect(await requestsTo('E1')).toBe(0);
  });

  test('JSON: a credit note in inbox/invoice/ and a debit note in inbox/credit-note/ are invalid with the field that shows it; nothing is sent', async () => {
    await project.drop('invoice', 'nc.json', jsonText([creditNote(7, 'SETP990000001')]));
    await project.drop(
      'credit-note',
      'nd.jsonl',
      `${JSON.stringify(debitNote(7, 'SETP990000001'))}\n`,
    );
    const nc = await project.finalResult('invoice', 'nc.json');
    expect(nc.counts).toMatchObject({ total: 1, invalid: 1 });
    expect(nc.documents[0].errors.map((e) => [e.code, e.field])).toEqual([
      ['EDOC_VALIDATE_WRONG_FOLDER', 'ReasonCredit'],
    ]);
    expect(nc.documents[0].errors[0].message).toContain(
      'makes this a credit note, not an invoice; it is not sent: drop it in the credit-note folder',
    );
    const nd = await project.finalResult('credit-note', 'nd.jsonl');
    expect(nd.documents[0].errors).toEqual([
      expect.objectContaining({ code: 'EDOC_VALIDATE_WRONG_FOLDER', field: 'ReasonDebit' }),
    ]);
    expect(nd.documents[0].errors[0].message).toContain('drop it in the debit-note folder');
    expect(await requestsTo('E1')).toBe(0);
    expect(await emulator.client.documents()).toEqual([]);
  });
});

describe('edoc-bridge validate shows the same problems (issue 12 item 5)', () => {
  test("the credit-note export validated as an invoice, and the debit note as a credit note: exit 1, the daemon's problems", async () => {
    const csv = await runCli(project, [
      'validate',
      path.join(ROOT, 'examples/credit-notes.csv'),
      '--kind',
      'invoice',
    ]);
    expect(csv.code).toBe(1);
    const [doc] = csv.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            request: unknown;
            problems: { code: string; column?: string; rows?: number[]; message: string }[];
          },
      );
    expect(doc.request).toBeNull();
    expect(doc.problems.map((p) => [p.code, p.column, p.rows])).toEqual([
      ['EDOC_VALIDATE_WRONG_FOLDER', 'motivo', [2, 3]],
      ['EDOC_VALIDATE_WRONG_FOLDER', 'ref_documento', [2, 3]],
      ['EDOC_VALIDATE_WRONG_FOLDER', 'prefijo', [2, 3]],
    ]);
    expect(doc.problems[2].message).toBe(
      'rows 2-3: "NC" in column "prefijo" makes this a credit note, not an invoice; it is not sent: drop it in the credit-note folder instead of the invoice folder',
    );
    const file = path.join(project.dir, 'nd.json');
    await writeFile(file, jsonText([debitNote(8, 'SETP990000001')]));
    const json = await runCli(project, ['validate', file, '--kind', 'credit-note']);
    expect(json.code).toBe(1);
    const [nd] = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { problems: { code: string; path: string; message: string }[] });
    expect(nd.problems).toEqual([
      expect.objectContaining({ code: 'EDOC_VALIDATE_WRONG_FOLDER', path: 'ReasonDebit' }),
    ]);
    expect(nd.problems[0].message).toContain(
      'makes this a debit note, not a credit note; it is not sent: drop it in the debit-note folder',
    );
    expect(await requestsTo('E1')).toBe(0);
  });
});

describe('E5 numbering problems (issue 12 item 6)', () => {
  test("a support document outside every DS range, or under a prefix without a support range, is invalid with the service's message; nothing issued, sent once", async () => {
    const outside = supportDocument(1_000_000_000);
    const noRange = { ...supportDocument(5), SeriePrefix: 'SETP' };
    await project.drop('support-document', 'ds-numbering.json', jsonText([outside, noRange]));
    const result = await project.finalResult('support-document', 'ds-numbering.json');
    expect(result.counts).toMatchObject({ total: 2, invalid: 2, rejected: 0, failed: 0 });
    expect(result.documents.map((d) => [d.status, d.resultCode, d.httpStatus])).toEqual([
      ['invalid', '400', 200],
      ['invalid', '400', 200],
    ]);
    expect(result.documents[0].errors.map((e) => e.message).join(' ')).toContain(
      'El número DS1000000000 no está dentro de un rango de numeración vigente de documento soporte con prefijo DS para la empresa 1001.',
    );
    expect(result.documents[1].errors.map((e) => e.message).join(' ')).toContain(
      'No hay una resolución de documento soporte vigente con prefijo SETP para la empresa 1001.',
    );
    expect(await requestsTo('E5')).toBe(2);
    expect(await emulator.client.documents({ kind: 'support-document' })).toEqual([]);
  });
});
