/**
 * What `resolve` and errors.csv tell an operator about documents that may be issued, through the real CLI
 * against an emulator on port 0, the shipped CSV mapping and a real SQLite ledger.
 * - A first export whose answers were lost (the service issued it: 2,380.00) and the ERP's corrected
 *   re-export of the same number (3,094.00, answered Regla 90): `resolve --issued` by the number names both
 *   copies and records nothing; by its place, the copy the service holds is recorded issued.
 * - A document in doubt after an uncontrolled HTTP 500 says in errors.csv what to do, not only the service's words.
 */
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, type Project, type ResultJson } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { jsonText, supportDocument } from '../helpers/documents.js';
import { errorsCsvRows, SALES_HEADER, SALES_KINDS, salesRow } from '../helpers/sales-csv.js';

beforeAll(buildCli, 240_000);

async function result(p: Project, kind: string, name: string): Promise<ResultJson> {
  const r = await p.result(kind, name);
  if (r === undefined) throw new Error(`no result.json for ${name}`);
  return r;
}

describe('resolve --issued where two copies of ours share a number', () => {
  test('a lost first export (2,380.00) and its corrected re-export (3,094.00): the number alone is refused naming both copies; the copy named by its place is recorded', async ({
    daemonProject,
  }) => {
    const { project: p, emulator: emu } = await daemonProject({
      kinds: SALES_KINDS,
      retry: { maxAttempts: 1, baseDelayMs: 20, maxDelayMs: 50 },
    });
    // 1 × 2.000,00 + 19 % VAT = 2,380.00: issued at the service, its answer lost
    await emu.client.setFaults({ dropAfterCommitRate: 1 });
    const first = await p.exportFile(
      'ventas-21.csv',
      SALES_HEADER + salesRow(990_700_001, '2.000,00'),
    );
    expect((await runCli(p, ['submit', first, '--kind', 'invoice'])).code).not.toBe(0);
    await emu.client.setFaults({});
    const lost = (await result(p, 'invoice', 'ventas-21.csv')).documents[0];
    expect(lost.status).toBe('failed');
    // 1 × 2.600,00 + 19 % VAT = 3,094.00: the ERP's correction, answered Regla 90
    const second = await p.exportFile(
      'ventas-21-corregido.csv',
      SALES_HEADER + salesRow(990_700_001, '2.600,00'),
    );
    expect((await runCli(p, ['submit', second, '--kind', 'invoice'])).code).toBe(1);
    expect((await result(p, 'invoice', 'ventas-21-corregido.csv')).documents[0]).toMatchObject({
      status: 'in-doubt',
      doubt: 'repeated-number',
    });
    // the service holds the first export
    const held = (await emu.client.documents({ kind: 'invoice', withRequest: true })).filter(
      (d) => d.accepted && Number(d.number) === 990_700_001,
    );
    expect(
      held.map((d) => (d.request as { Total: { PayableAmount: string } }).Total.PayableAmount),
    ).toEqual(['2380.00']);

    // the number alone: refused, naming both copies (file, row, payable amount); nothing recorded
    const byNumber = await runCli(p, [
      'resolve',
      '--document',
      'main/invoice/SETP/990700001',
      '--issued',
    ]);
    expect(byNumber.code).toBe(2);
    expect(byNumber.stderr).toMatch(
      /resolve: main\/invoice\/SETP\/990700001: 2 documents of ours carry the number SETP990700001 with other contents.*nothing was recorded/,
    );
    expect(byNumber.stderr).toMatch(
      /--document ventas-21\.csv#0 {3}rows 2, payable 2380\.00, failed after an attempt that may have reached the service/,
    );
    expect(byNumber.stderr).toMatch(
      /--document ventas-21-corregido\.csv#0 {3}rows 2, payable 3094\.00, in doubt \(repeated-number\)/,
    );
    // nor does the corrected file's name: its word would take that copy without a look at the other
    const byFile = await runCli(p, ['resolve', '--file', 'ventas-21-corregido.csv', '--issued']);
    expect(byFile.code).toBe(2);
    expect(byFile.stderr).toMatch(
      /ventas-21-corregido\.csv: 2 documents of ours carry the number SETP990700001 with other contents/,
    );
    expect(byFile.stderr).toMatch(/--document ventas-21\.csv#0 {3}rows 2, payable 2380\.00/);
    expect((await result(p, 'invoice', 'ventas-21-corregido.csv')).counts).toMatchObject({
      inDoubt: 1,
      accepted: 0,
    });
    expect((await result(p, 'invoice', 'ventas-21.csv')).counts).toMatchObject({
      failed: 1,
      accepted: 0,
    });

    // the operator names the copy the service holds: the first export, recorded accepted
    const byPlace = await runCli(p, [
      'resolve',
      '--document',
      'ventas-21.csv#0',
      '--issued',
      '--note',
      'el portal muestra 2.380,00',
    ]);
    expect(byPlace.code, byPlace.stderr).toBe(0);
    expect(byPlace.stdout).toMatch(/recorded 1 document\(s\) as issued \(accepted\)/);
    expect(byPlace.stderr).toMatch(/ventas-21-corregido\.csv#0 {3}rows 2, payable 3094\.00/);
    const issued = await result(p, 'invoice', 'ventas-21.csv');
    expect(issued.counts).toMatchObject({ accepted: 1, failed: 0 });
    // and the correction is recorded as not what the service holds
    const notOurs = await runCli(p, [
      'resolve',
      '--document',
      'ventas-21-corregido.csv#0',
      '--not-ours',
    ]);
    expect(notOurs.code, notOurs.stderr).toBe(0);
    expect((await result(p, 'invoice', 'ventas-21-corregido.csv')).counts).toMatchObject({
      duplicate: 1,
      inDoubt: 0,
      accepted: 0,
    });
  });
});

describe('errors.csv of a document in doubt', () => {
  test('after an uncontrolled HTTP 500 its row carries the advice: it may be issued, check on the service, then resolve', async ({
    daemonProject,
  }) => {
    const { project: p, emulator: emu } = await daemonProject({
      retry: { maxAttempts: 1, baseDelayMs: 20, maxDelayMs: 50 },
    });
    await emu.client.setFaults({ errorRate: 1 });
    const file = await p.exportFile('compras-500.json', jsonText(supportDocument(undefined, 'x')));
    expect((await runCli(p, ['submit', file, '--kind', 'support-document'])).code).toBe(1);
    const r: ResultJson = await result(p, 'support-document', 'compras-500.json');
    expect(r.documents[0]).toMatchObject({ status: 'in-doubt', doubt: 'no-answer' });
    const rows = await errorsCsvRows(
      path.join(p.outbox('support-document'), 'compras-500.errors.csv'),
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(/^0;;in-doubt;lines 1-\d+;EDOC_SUBMIT_IN_DOUBT;;;/);
    expect(rows[1]).toContain(
      'It may be issued: check on the service (its issued documents, or the DIAN portal) whether it holds this ' +
        'document, then run edoc-bridge resolve --document compras-500.json#0 --issued if it does, or edoc-bridge ' +
        'retry --document compras-500.json#0 --in-doubt if it does not.',
    );
  });
});
