/**
 * Issue 12 item 1, outsider attack: the service answers a resend with Regla 90
 * AND another reason. Our first attempt was issued (its answer was lost), then
 * the range stopped being current before the resend (the emulator restarted on
 * the next day, after the range's ValidTo): the resend is rejected for rule 90
 * and FAD05. The document is issued at the service, so it must not be recorded
 * `rejected` (an operator would renumber it and issue it twice): it is
 * `in-doubt` (repeated-number), like a Regla 90 answer alone.
 * Real daemon (child process), emulator over HTTP with a state file, restarted.
 */
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN, eventually } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 120_000);

describe('Regla 90 with another reason after a lost answer (issue 12 item 1)', () => {
  test("issued on the range's last day, resent the next day: in-doubt repeated-number, not rejected", async ({
    daemonProject,
    resources,
  }) => {
    const stateFile = path.join(
      await resources.tempDir('edoc-regla90-mixed-'),
      'emulator-state.json',
    );
    // the ranges of seedFor are valid to 2030-01-19T23:59:59
    const { emulator, project, startDaemon } = await daemonProject({
      faults: { dropAfterCommitRate: 1 },
      emulatorOptions: { stateFile, today: '2030-01-19' },
      retry: { maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 2_000 },
    });
    const port = Number(new URL(emulator.url).port);
    const { client } = emulator;
    await startDaemon();
    await project.drop('invoice', 'last-day.json', jsonText([invoice(990_000_501, COMPANY_MAIN)]));
    await eventually(
      async () =>
        (await client.documents({ kind: 'invoice' })).some((d) => d.accepted) ? true : undefined,
      'the first attempt issued at the emulator',
    );
    await emulator.close();
    await resources.emulator([COMPANY_MAIN], {}, { port, stateFile, today: '2030-01-20' });
    const result = await project.finalResult('invoice', 'last-day.json', { timeoutMs: 30_000 });
    const doc = result.documents[0];
    expect(doc.status).toBe('in-doubt');
    expect(doc.errors.map((e) => e.code)).toEqual(['EDOC_SUBMIT_REPEATED_NUMBER']);
    expect(result.counts).toMatchObject({ rejected: 0, inDoubt: 1 });
    // the resend really was answered with both reasons, and the emulator holds our document
    const held = await client.documents({ kind: 'invoice' });
    expect(held.filter((d) => d.accepted).map((d) => d.number)).toEqual(['990000501']);
    expect(
      held.some(
        (d) =>
          !d.accepted &&
          d.reasons.some((r) => r.includes('Regla: 90')) &&
          d.reasons.some((r) => r.includes('FAD05')),
      ),
    ).toBe(true);
  });
});
