/**
 * Issue 12 item 1: a repeated-number answer (Regla 90) is reported truthfully, through the real CLI
 * (`submit`, `retry`, `resolve`, `status`) against an emulator on port 0.
 * - Nothing of ours with the number can have reached the service → a clash: `duplicate`,
 *   EDOC_SERVICE_NUMBER_CLASH naming the number.
 * - An attempt of ours may have reached it (a reset after the request was written, a lost answer) →
 *   never `accepted`, never a clash: `in-doubt` with doubt `repeated-number`, until the operator
 *   confirms at the authority (`resolve --issued` / `--not-ours`).
 * Each test also reads what the emulator holds under the number, to check the report tells the truth.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { ServiceClient } from '../../src/service/client.js';
import type { InvoiceRequest } from '../../src/service/schemas/index.js';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  type Project,
  type ProjectOptions,
  type ResultJson,
  stem,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { daemonTest as test, type DaemonFixtures } from '../helpers/daemon-fixture.js';
import { invoice, jsonText, supportDocument } from '../helpers/documents.js';
import type { IssuedDocument } from '../helpers/emulator-client.js';

/** With resetRate 0.5, this seed's first draw resets the connection and the next three pass. */
const RESET_THEN_PASS = { resetRate: 0.5, randomSeed: 35 };

beforeAll(async () => {
  await buildCli();
}, 240_000);

async function setUp(
  daemonProject: DaemonFixtures['daemonProject'],
  options: Partial<ProjectOptions> = {},
): Promise<{ emu: TestEmulator; p: Project }> {
  const { emulator, project } = await daemonProject({
    retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 50 },
    ...options,
  });
  return { emu: emulator, p: project };
}

/** Another system issues `number` at the service first, with its own content. */
async function issuedByOthers(emu: TestEmulator, number: number): Promise<void> {
  const client = new ServiceClient({ baseUrl: emu.url, timeoutMs: 5_000 });
  try {
    const other = invoice(number);
    other.CorrelationDocumentId = 'OTRO-SISTEMA-1';
    const r = await client.issueInvoice(
      { id: COMPANY_MAIN.id, apiKey: COMPANY_MAIN.apiKey },
      other as unknown as InvoiceRequest,
    );
    expect(r.outcome.kind).toBe('accepted');
  } finally {
    await client.close();
  }
}

/** What the service holds (accepted) under SETP<number>. */
async function heldUnder(emu: TestEmulator, number: number): Promise<IssuedDocument[]> {
  return (await emu.client.documents({ kind: 'invoice', withRequest: true })).filter(
    (d) => d.accepted && d.prefix === 'SETP' && Number(d.number) === number,
  );
}

function correlation(d: IssuedDocument): unknown {
  return (d.request as { CorrelationDocumentId?: unknown } | undefined)?.CorrelationDocumentId;
}

async function result(p: Project, name: string): Promise<ResultJson> {
  return JSON.parse(await readFile(p.resultPath('invoice', name), 'utf8')) as ResultJson;
}

async function errorsCsv(p: Project, name: string): Promise<string> {
  return readFile(path.join(p.outbox('invoice'), `${stem(name)}.errors.csv`), 'utf8');
}

interface StatusJson {
  inDoubt: { key: string | null; doubt: string | null; lastError: string | null }[];
  byCompanyKind: { counts: Record<string, number> }[];
}

async function statusJson(p: Project): Promise<StatusJson> {
  const run = await runCli(p, ['status', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as StatusJson;
}

describe('a repeated number (Regla 90) through edoc-bridge submit', () => {
  test('a number another document holds, answered at our first attempt: duplicate with EDOC_SERVICE_NUMBER_CLASH naming the number, in errors.csv and the retry file', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject);
    await issuedByOthers(emu, 990_300_001);
    const file = await p.exportFile(
      'choque.json',
      jsonText([invoice(990_300_001), invoice(990_300_002)]),
    );
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(
      /2 document\(s\): 1 accepted, 0 rejected, 0 invalid, 0 failed, 1 duplicate, 0 in doubt/,
    );
    const r = await result(p, 'choque.json');
    expect(r.counts).toMatchObject({ total: 2, accepted: 1, duplicate: 1, inDoubt: 0 });
    const doc = r.documents[0];
    expect(doc.status).toBe('duplicate');
    expect(doc.errors).toHaveLength(1);
    expect(doc.errors[0].code).toBe('EDOC_SERVICE_NUMBER_CLASH');
    expect(doc.errors[0].message).toMatch(
      /SETP990300001 is already used at the service by another document/,
    );
    const csv = await errorsCsv(p, 'choque.json');
    expect(csv).toMatch(/EDOC_SERVICE_NUMBER_CLASH/);
    expect(csv).toMatch(/SETP990300001/);
    // not issued: its original goes to the retry file, to be given a new number
    const retry = await readFile(path.join(p.outbox('invoice'), 'choque.retry.json'), 'utf8');
    expect(retry).toContain('"SerieNumber": "990300001"');
    expect(retry).not.toContain('990300002');
    // the service holds the other system's document, once
    expect((await heldUnder(emu, 990_300_001)).map(correlation)).toEqual(['OTRO-SISTEMA-1']);
  });

  test('a number another document holds, met after a connection reset: in-doubt (repeated-number), not accepted', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject);
    await issuedByOthers(emu, 990_300_011);
    await emu.client.setFaults(RESET_THEN_PASS);
    const file = await p.exportFile('reset.json', jsonText(invoice(990_300_011)));
    const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect((await emu.client.stats()).faultsInjected.reset).toBe(1);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(
      /1 document\(s\): 0 accepted, 0 rejected, 0 invalid, 0 failed, 0 duplicate, 1 in doubt/,
    );
    const r = await result(p, 'reset.json');
    expect(r.counts).toMatchObject({ total: 1, accepted: 0, duplicate: 0, inDoubt: 1 });
    expect(r.documents[0]).toMatchObject({ status: 'in-doubt', doubt: 'repeated-number' });
    expect(r.documents[0].errors.map((e) => e.code)).toEqual(['EDOC_SUBMIT_REPEATED_NUMBER']);
    expect(r.documents[0].errors[0].message).toMatch(
      /already holds a document under the number SETP990300011/,
    );
    expect(r.documents[0].errors[0].message).toMatch(
      /resolve --document main\/invoice\/SETP\/990300011 --issued/,
    );
    expect(await errorsCsv(p, 'reset.json')).toMatch(/in-doubt;.*EDOC_SUBMIT_REPEATED_NUMBER/);
    // the service holds someone else's document: reporting it accepted would have been false
    expect((await heldUnder(emu, 990_300_011)).map(correlation)).toEqual(['OTRO-SISTEMA-1']);
    // the log's final line says why
    const final = p
      .logLines()
      .find((l) => l.msg === 'document final' && l.doc === 'main/invoice/SETP/990300011');
    expect(final).toMatchObject({
      status: 'in-doubt',
      doubt: 'repeated-number',
      code: 'EDOC_SUBMIT_REPEATED_NUMBER',
    });
  });
});

describe('our own document whose answer was lost, sent again later', () => {
  test('through retry and through a new file with the same number: in-doubt repeated-number (never duplicate); resolve --issued and --not-ours settle them; status, result.json and errors.csv agree', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject, {
      retry: { maxAttempts: 1, baseDelayMs: 20, maxDelayMs: 50 },
    });
    await emu.client.setFaults({ dropAfterCommitRate: 1 });
    const first = await p.exportFile('perdida.json', jsonText(invoice(990_300_021)));
    const lost = await runCli(p, ['submit', first, '--kind', 'invoice']);
    expect(lost.code).not.toBe(0);
    expect((await result(p, 'perdida.json')).documents[0].status).toBe('failed');
    await emu.client.setFaults({});

    // retry re-queues the failed document; the same file submitted again sends it
    const requeued = await runCli(p, ['retry', '--file', 'perdida.json']);
    expect(requeued.code, requeued.stderr).toBe(0);
    const resent = await runCli(p, ['submit', first, '--kind', 'invoice']);
    expect(resent.code, resent.stdout).toBe(1);
    let r = await result(p, 'perdida.json');
    expect(r.documents[0]).toMatchObject({ status: 'in-doubt', doubt: 'repeated-number' });
    expect(r.counts).toMatchObject({ duplicate: 0, inDoubt: 1, accepted: 0 });

    // a corrected export of the same number, as a new file
    const corrected = invoice(990_300_021);
    corrected.CorrelationDocumentId = 'ERP-SETP-990300021-v2';
    const second = await p.exportFile('corregida.json', jsonText(corrected));
    const again = await runCli(p, ['submit', second, '--kind', 'invoice']);
    expect(again.code, again.stdout).toBe(1);
    r = await result(p, 'corregida.json');
    expect(r.documents[0]).toMatchObject({ status: 'in-doubt', doubt: 'repeated-number' });
    expect(r.documents[0].errors.map((e) => e.code)).toEqual(['EDOC_SUBMIT_REPEATED_NUMBER']);
    expect(await errorsCsv(p, 'corregida.json')).toMatch(/EDOC_SUBMIT_REPEATED_NUMBER/);

    // status lists both with the reason
    const shown = await runCli(p, ['status']);
    expect(shown.stdout).toMatch(/In doubt .*: 2/);
    expect(
      shown.stdout
        .split('\n')
        .filter((l) => l.includes('SETP/990300021') && l.includes('repeated-number')),
    ).toHaveLength(2);
    expect((await statusJson(p)).inDoubt.map((d) => d.doubt)).toEqual([
      'repeated-number',
      'repeated-number',
    ]);

    // retry --in-doubt refuses: a resend gets the same Regla 90; nothing is sent
    const sentBefore = (await emu.client.stats()).totalRequests;
    const refused = await runCli(p, ['retry', '--file', 'corregida.json', '--in-doubt']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /1 in-doubt document\(s\) of corregida\.json were not released: the service already holds a document under their number/,
    );
    expect(refused.stderr).toMatch(/edoc-bridge resolve --document KEY --issued .* or --not-ours/);
    expect((await emu.client.stats()).totalRequests).toBe(sentBefore);

    // the authority holds our first export, once: the operator sees it and says so
    const held = await heldUnder(emu, 990_300_021);
    expect(held.map(correlation)).toEqual(['ERP-SETP-990300021']);
    const issued = await runCli(p, [
      'resolve',
      '--document',
      'perdida.json#0',
      '--issued',
      '--note',
      'SETP990300021 es nuestra',
    ]);
    expect(issued.code, issued.stderr).toBe(0);
    r = await result(p, 'perdida.json');
    expect(r.counts).toMatchObject({ total: 1, accepted: 1, inDoubt: 0 });
    expect(r.documents[0].status).toBe('accepted');
    // the service holds one document per number: the second cannot be recorded issued too
    const twice = await runCli(p, ['resolve', '--file', 'corregida.json', '--issued']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(
      /not recorded as issued: main\/invoice\/SETP\/990300021 — another document of ours with that number is already recorded accepted/,
    );
    const notOurs = await runCli(p, [
      'resolve',
      '--file',
      'corregida.json',
      '--not-ours',
      '--note',
      'el portal muestra la primera versión',
    ]);
    expect(notOurs.code, notOurs.stderr).toBe(0);
    expect(notOurs.stdout).toMatch(
      /recorded 1 document\(s\) as a number clash \(duplicate, EDOC_SERVICE_NUMBER_CLASH\)/,
    );
    r = await result(p, 'corregida.json');
    expect(r.counts).toMatchObject({ total: 1, duplicate: 1, inDoubt: 0 });
    expect(r.documents[0].status).toBe('duplicate');
    expect(r.documents[0].errors.map((e) => e.code)).toEqual(['EDOC_SERVICE_NUMBER_CLASH']);
    expect(r.documents[0].warnings[0]).toMatch(
      /by the operator's word .*: el portal muestra la primera versión$/,
    );
    expect(await errorsCsv(p, 'corregida.json')).toMatch(/duplicate;.*EDOC_SERVICE_NUMBER_CLASH/);
    expect((await statusJson(p)).inDoubt).toEqual([]);
    expect((await emu.client.stats()).totalRequests).toBe(sentBefore);
  });

  test('resolve --not-ours applies only to a repeated-number doubt, and needs exactly one of --issued / --not-ours', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject, {
      retry: { maxAttempts: 1, baseDelayMs: 20, maxDelayMs: 50 },
    });
    await emu.client.setFaults({ dropAfterCommitRate: 1 });
    const file = await p.exportFile('sin-numero.json', jsonText(supportDocument(undefined, 'uno')));
    expect((await runCli(p, ['submit', file, '--kind', 'support-document'])).code).toBe(1);
    const both = await runCli(p, [
      'resolve',
      '--file',
      'sin-numero.json',
      '--issued',
      '--not-ours',
    ]);
    expect(both.code).toBe(2);
    const wrong = await runCli(p, ['resolve', '--file', 'sin-numero.json', '--not-ours']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /in doubt for a lost answer \(no-answer\), not a repeated number: --not-ours does not apply/,
    );
    expect((await statusJson(p)).inDoubt.map((d) => d.doubt)).toEqual(['no-answer']);
  });
});

describe('a failed document that may be issued already', () => {
  test('answers lost on every attempt: failed with EDOC_SUBMIT_MAYBE_ISSUED and kept out of the retry file', async ({
    daemonProject,
  }) => {
    const { emu, p } = await setUp(daemonProject, {
      retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
    });
    await emu.client.setFaults({ dropAfterCommitRate: 1 });
    const lost = await p.exportFile('perdidas.json', jsonText(invoice(990_300_031)));
    expect((await runCli(p, ['submit', lost, '--kind', 'invoice'])).code).not.toBe(0);
    const r = await result(p, 'perdidas.json');
    expect(r.documents[0].status).toBe('failed');
    expect(r.documents[0].errors.map((e) => e.code)).toContain('EDOC_SUBMIT_MAYBE_ISSUED');
    // the service does hold it: a copy under another number would issue the sale twice
    expect(await heldUnder(emu, 990_300_031)).toHaveLength(1);
    expect(await errorsCsv(p, 'perdidas.json')).toMatch(/EDOC_SUBMIT_MAYBE_ISSUED/);
    await expect(
      readFile(path.join(p.outbox('invoice'), 'perdidas.retry.json'), 'utf8'),
    ).rejects.toThrow(/ENOENT/);
  });
});
