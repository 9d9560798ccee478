/**
 * Issue 16 item 3: `edoc-bridge submit` runs the daemon's pipeline (src/daemon/pipeline.ts). Where the
 * foreground path used to wire intake, sender and report its own way, the two now behave alike: the
 * documents of a file are logged and reported under that file whoever sends them, and a file whose
 * documents are not all final is not reported final.
 */
import { createServer } from 'node:net';
import { beforeAll, describe, expect } from 'vitest';
import {
  BUILD_TIMEOUT_MS,
  daemonTest as test,
  type DaemonProject,
} from '../helpers/daemon-fixture.js';
import { buildCli } from '../helpers/daemon-harness.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A project whose service does not answer, and a file submitted to it: exit 3, its two invoices pending. */
async function leftPending(
  daemonProject: (o: object) => Promise<DaemonProject>,
  numbers: readonly number[],
): Promise<DaemonProject> {
  const x = await daemonProject({
    baseUrl: `http://127.0.0.1:${await closedPort()}`,
    retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
  });
  const file = await x.project.exportFile('caida.json', jsonText(numbers.map((n) => invoice(n))));
  const run = await x.cli(['submit', file, '--kind', 'invoice']);
  expect(run.code, run.stderr).toBe(3);
  expect(run.stdout).toMatch(/caida\.json: 2 document\(s\): 0 accepted.*2 not sent yet/);
  // the service is back
  await x.project.writeConfig({ ...x.project.options, baseUrl: x.emulator.url });
  return x;
}

async function issuedCount(x: DaemonProject, number: number): Promise<number> {
  return (await x.emulator.client.documents()).filter((d) => d.documentNumber === `SETP${number}`)
    .length;
}

describe('submit and the daemon run one pipeline', () => {
  test("a submit that could not reach the service leaves its file open: the daemon sends the pending invoices and the file's result.json then says so", async ({
    daemonProject,
  }) => {
    const nums = [990_160_001, 990_160_002];
    const x = await leftPending(daemonProject, nums);
    const p = x.project;
    const pending = await p.result('invoice', 'caida.json');
    expect(pending?.counts).toMatchObject({ total: 2, accepted: 0 });
    // not final while two documents wait to be sent (it used to say finished, and stayed so for good)
    expect(pending?.finishedAt).toBeNull();

    await x.startDaemon();
    const result = await p.finalResult('invoice', 'caida.json', { timeoutMs: 30_000 });
    expect(result.counts).toMatchObject({ total: 2, accepted: 2 });
    expect(result.documents.map((d) => d.status)).toEqual(['accepted', 'accepted']);
    for (const n of nums) expect(await issuedCount(x, n)).toBe(1);
  });

  test("a submit that sends the pending invoices of an earlier file logs them under that file and writes that file's report", async ({
    daemonProject,
  }) => {
    const nums = [990_160_011, 990_160_012];
    const x = await leftPending(daemonProject, nums);
    const p = x.project;
    const other = await p.exportFile('otro.json', jsonText([invoice(990_160_013)]));
    const run = await x.cli(['submit', other, '--kind', 'invoice']);
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
    for (const n of [...nums, 990_160_013]) expect(await issuedCount(x, n)).toBe(1);
  });

  test('the same submit again after a daemon ran on the state folder: submitted before, nothing sent, exit 0 (not duplicate content)', async ({
    daemonProject,
  }) => {
    const x = await daemonProject({});
    const { emulator } = x;
    const file = await x.project.exportFile('kept.json', jsonText([invoice(990_160_021)]));
    expect((await x.cli(['submit', file, '--kind', 'invoice'])).code).toBe(0);
    const daemon = await x.startDaemon();
    await daemon.stop();
    const before = (await emulator.client.stats()).totalRequests;
    const again = await x.cli(['submit', file, '--kind', 'invoice']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /kept\.json: this file was submitted before and every document in it is final; nothing was sent again/,
    );
    expect(again.stdout).toMatch(/^kept\.json: 1 document\(s\): 1 accepted/);
    expect((await emulator.client.stats()).totalRequests).toBe(before);
    expect(await issuedCount(x, 990_160_021)).toBe(1);
  });
});
