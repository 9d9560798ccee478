/**
 * Issue 16 item 3: `edoc-bridge submit` runs the daemon's pipeline (src/daemon/pipeline.ts). Where the
 * foreground path used to wire intake, sender and report its own way, the two now behave alike: the
 * documents of a file are logged and reported under that file whoever sends them, and a file whose
 * documents are not all final is not reported final.
 */
import { createServer } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli, COMPANY_MAIN, createProject, DaemonProcess, type Project, startTestEmulator, type TestEmulator,
} from '../helpers/daemon-harness.js';
import { invoice, jsonText } from '../helpers/documents.js';

let emulator: TestEmulator;
const projects: Project[] = [];
let daemon: DaemonProcess | undefined;

beforeAll(async () => {
  await buildCli();
  emulator = await startTestEmulator([COMPANY_MAIN]);
}, 240_000);

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

afterAll(async () => {
  await emulator?.close();
  for (const p of projects) await p.remove();
});

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function exportFile(p: Project, name: string, content: string): Promise<string> {
  const dir = path.join(p.dir, 'exports');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  await writeFile(file, content);
  return file;
}

/** A project whose service does not answer, and a file submitted to it: exit 3, its two invoices pending. */
async function leftPending(numbers: readonly number[]): Promise<{ p: Project; file: string }> {
  const p = await createProject({ baseUrl: `http://127.0.0.1:${await closedPort()}`, companies: [COMPANY_MAIN],
    retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 } });
  projects.push(p);
  const file = await exportFile(p, 'caida.json', jsonText(numbers.map((n) => invoice(n))));
  const run = await runCli(p, ['submit', file, '--kind', 'invoice']);
  expect(run.code, run.stderr).toBe(3);
  expect(run.stdout).toMatch(/caida\.json: 2 document\(s\): 0 accepted.*2 not sent yet/);
  // the service is back
  await p.writeConfig({ ...p.options, baseUrl: emulator.url });
  return { p, file };
}

async function issuedCount(number: number): Promise<number> {
  return (await emulator.client.documents()).filter((d) => d.documentNumber === `SETP${number}`).length;
}

describe('submit and the daemon run one pipeline', () => {
  test('a submit that could not reach the service leaves its file open: the daemon sends the pending invoices and the file\'s result.json then says so', async () => {
    const nums = [990_160_001, 990_160_002];
    const { p } = await leftPending(nums);
    const pending = await p.result('invoice', 'caida.json');
    expect(pending?.counts).toMatchObject({ total: 2, accepted: 0 });
    // not final while two documents wait to be sent (it used to say finished, and stayed so for good)
    expect(pending?.finishedAt).toBeNull();

    daemon = await DaemonProcess.start(p);
    const result = await p.finalResult('invoice', 'caida.json', { timeoutMs: 30_000 });
    expect(result.counts).toMatchObject({ total: 2, accepted: 2 });
    expect(result.documents.map((d) => d.status)).toEqual(['accepted', 'accepted']);
    for (const n of nums) expect(await issuedCount(n)).toBe(1);
  });

  test('a submit that sends the pending invoices of an earlier file logs them under that file and writes that file\'s report', async () => {
    const nums = [990_160_011, 990_160_012];
    const { p } = await leftPending(nums);
    const other = await exportFile(p, 'otro.json', jsonText([invoice(990_160_013)]));
    const run = await runCli(p, ['submit', other, '--kind', 'invoice']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^otro\.json: 1 document\(s\): 1 accepted/);

    const finals = p.logLines().filter((l) => l.msg === 'document final');
    for (const n of nums) {
      const lines = finals.filter((l) => String(l.doc).endsWith(`/${n}`));
      expect(lines.map((l) => [l.file, l.status])).toEqual([['caida.json', 'accepted']]);
    }
    const earlier = await p.result('invoice', 'caida.json');
    expect(earlier?.counts).toMatchObject({ total: 2, accepted: 2 });
    expect(earlier?.finishedAt).not.toBeNull();
    for (const n of [...nums, 990_160_013]) expect(await issuedCount(n)).toBe(1);
  });

  test('the same submit again after a daemon ran on the state folder: submitted before, nothing sent, exit 0 (not duplicate content)', async () => {
    const p = await createProject({ baseUrl: emulator.url, companies: [COMPANY_MAIN] });
    projects.push(p);
    const file = await exportFile(p, 'kept.json', jsonText([invoice(990_160_021)]));
    expect((await runCli(p, ['submit', file, '--kind', 'invoice'])).code).toBe(0);
    daemon = await DaemonProcess.start(p);
    await daemon.stop();
    daemon = undefined;
    const before = (await emulator.client.stats()).totalRequests;
    const again = await runCli(p, ['submit', file, '--kind', 'invoice']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/kept\.json: this file was submitted before and every document in it is final; nothing was sent again/);
    expect(again.stdout).toMatch(/^kept\.json: 1 document\(s\): 1 accepted/);
    expect((await emulator.client.stats()).totalRequests).toBe(before);
    expect(await issuedCount(990_160_021)).toBe(1);
  });
});
