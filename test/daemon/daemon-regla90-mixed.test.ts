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
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import {
  buildCli, COMPANY_MAIN, createProject, DaemonProcess, eventually, type Project, seedFor,
} from '../helpers/daemon-harness.js';
import { EmulatorClient } from '../helpers/emulator-client.js';
import { invoice, jsonText } from '../helpers/documents.js';

let dir: string;
let emulator: RunningEmulator | undefined;
let project: Project | undefined;
let daemon: DaemonProcess | undefined;

beforeAll(async () => {
  await buildCli();
  dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-regla90-mixed-'));
}, 120_000);

afterAll(async () => {
  await daemon?.stop();
  await emulator?.close();
  await project?.remove();
  await rm(dir, { recursive: true, force: true });
});

describe('Regla 90 with another reason after a lost answer (issue 12 item 1)', () => {
  test('issued on the range\'s last day, resent the next day: in-doubt repeated-number, not rejected', async () => {
    const stateFile = path.join(dir, 'emulator-state.json');
    // the ranges of seedFor are valid to 2030-01-19T23:59:59
    emulator = await startEmulator({ host: '127.0.0.1', port: 0, stateFile,
      seed: { ...seedFor([COMPANY_MAIN], { dropAfterCommitRate: 1 }), today: '2030-01-19' } });
    const port = Number(new URL(emulator.url).port);
    const client = new EmulatorClient(emulator.url);
    project = await createProject({ baseUrl: emulator.url, companies: [COMPANY_MAIN], retry: { maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 2_000 } });
    daemon = await DaemonProcess.start(project);
    await project.drop('invoice', 'last-day.json', jsonText([invoice(990_000_501, COMPANY_MAIN)]));
    await eventually(async () => ((await client.documents({ kind: 'invoice' })).some((d) => d.accepted) ? true : undefined),
      'the first attempt issued at the emulator');
    await emulator.close();
    emulator = await startEmulator({ host: '127.0.0.1', port, stateFile, seed: { ...seedFor([COMPANY_MAIN]), today: '2030-01-20' } });
    const result = await project.finalResult('invoice', 'last-day.json', { timeoutMs: 30_000 });
    const doc = result.documents[0];
    expect(doc.status).toBe('in-doubt');
    expect(doc.errors.map((e) => e.code)).toEqual(['EDOC_SUBMIT_REPEATED_NUMBER']);
    expect(result.counts).toMatchObject({ rejected: 0, inDoubt: 1 });
    // the resend really was answered with both reasons, and the emulator holds our document
    const held = await client.documents({ kind: 'invoice' });
    expect(held.filter((d) => d.accepted).map((d) => d.number)).toEqual(['990000501']);
    expect(held.some((d) => !d.accepted && d.reasons.some((r) => r.includes('Regla: 90')) && d.reasons.some((r) => r.includes('FAD05')))).toBe(true);
  });
});
