/**
 * Issue 12 item 1 in the daemon (`edoc-bridge run` as a child process): the same rule as
 * `edoc-bridge submit` — a repeated-number answer (Regla 90) is a clash (`duplicate`,
 * EDOC_SERVICE_NUMBER_CLASH) only when nothing of ours with the number can have reached the service,
 * and otherwise `in-doubt` (repeated-number), never `accepted`; `edoc-bridge retry` beside the running
 * daemon follows it too.
 */
import { beforeAll, describe, expect } from 'vitest';
import { ServiceClient } from '../../src/service/client.js';
import type { InvoiceRequest } from '../../src/service/schemas/index.js';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  eventually,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

async function issuedByOthers(emu: TestEmulator, number: number): Promise<void> {
  const client = new ServiceClient({ baseUrl: emu.url, timeoutMs: 5_000 });
  try {
    const other = invoice(number);
    other.CorrelationDocumentId = 'OTRO-SISTEMA-1';
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
}

async function correlationsUnder(emu: TestEmulator, number: number): Promise<unknown[]> {
  return (await emu.client.documents({ kind: 'invoice', withRequest: true }))
    .filter((d) => d.accepted && Number(d.number) === number)
    .map((d) => (d.request as { CorrelationDocumentId?: unknown }).CorrelationDocumentId);
}

describe('repeated numbers in the daemon', () => {
  test('another document holds the number: after a connection reset it is in-doubt (repeated-number); answered directly it is a clash', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({ companies: [COMPANY_MAIN] });
    await issuedByOthers(emulator, 990_400_001);
    await issuedByOthers(emulator, 990_400_002);
    // resetRate 0.5 with seed 35: the first request is reset (after it was written), the next ones pass
    await emulator.client.setFaults({ resetRate: 0.5, randomSeed: 35 });
    const daemon = await startDaemon();
    await project.drop('invoice', 'tras-reset.json', jsonText(invoice(990_400_001)));
    const afterReset = await project.finalResult('invoice', 'tras-reset.json');
    expect((await emulator.client.stats()).faultsInjected.reset).toBe(1);
    expect(afterReset.counts).toMatchObject({ total: 1, accepted: 0, duplicate: 0, inDoubt: 1 });
    expect(afterReset.documents[0]).toMatchObject({ status: 'in-doubt', doubt: 'repeated-number' });
    expect(afterReset.documents[0].errors.map((e) => e.code)).toEqual([
      'EDOC_SUBMIT_REPEATED_NUMBER',
    ]);
    expect(await correlationsUnder(emulator, 990_400_001)).toEqual(['OTRO-SISTEMA-1']);
    const line = await daemon.waitForLog(
      (l) => l.msg === 'document final' && l.doc === 'main/invoice/SETP/990400001',
    );
    expect(line).toMatchObject({
      status: 'in-doubt',
      doubt: 'repeated-number',
      code: 'EDOC_SUBMIT_REPEATED_NUMBER',
    });

    await emulator.client.setFaults({});
    await project.drop('invoice', 'directo.json', jsonText(invoice(990_400_002)));
    const direct = await project.finalResult('invoice', 'directo.json');
    expect(direct.documents[0].status).toBe('duplicate');
    expect(direct.documents[0].errors.map((e) => e.code)).toEqual(['EDOC_SERVICE_NUMBER_CLASH']);
    expect(direct.documents[0].errors[0].message).toMatch(/SETP990400002/);
    const clash = await daemon.waitForLog(
      (l) => l.msg === 'document final' && l.doc === 'main/invoice/SETP/990400002',
    );
    expect(clash).toMatchObject({ status: 'duplicate', code: 'EDOC_SERVICE_NUMBER_CLASH' });
    expect(await correlationsUnder(emulator, 990_400_002)).toEqual(['OTRO-SISTEMA-1']);
  }, 60_000);

  test('our document whose answer was lost (failed), re-queued with edoc-bridge retry beside the daemon: in-doubt repeated-number, held once with our content', async ({
    daemonProject,
  }) => {
    const { emulator, project, startDaemon } = await daemonProject({
      faults: { dropAfterCommitRate: 1 },
      companies: [COMPANY_MAIN],
      retry: { maxAttempts: 1 },
    });
    await startDaemon();
    await project.drop('invoice', 'perdida.json', jsonText(invoice(990_400_011)));
    expect((await project.finalResult('invoice', 'perdida.json')).documents[0].status).toBe(
      'failed',
    );
    await emulator.client.setFaults({});
    const retried = await runCli(project, ['retry', '--file', 'perdida.json']);
    expect(retried.code, retried.stderr).toBe(0);
    const p = project;
    const after = await eventually(
      async () => {
        const r = await p.result('invoice', 'perdida.json');
        return r?.finishedAt !== null &&
          r?.documents[0].status !== 'failed' &&
          r?.documents[0].status !== 'pending'
          ? r
          : undefined;
      },
      'perdida.result.json rewritten after the resend',
      20_000,
    );
    expect(after.documents[0]).toMatchObject({ status: 'in-doubt', doubt: 'repeated-number' });
    expect(after.counts).toMatchObject({ accepted: 0, duplicate: 0, inDoubt: 1 });
    expect(await correlationsUnder(emulator, 990_400_011)).toEqual(['ERP-SETP-990400011']);
  }, 60_000);
});
