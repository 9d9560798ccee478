/**
 * Issue 12 items 2 and 3 through the real daemon: the done-marker convention
 * (`watch.doneMarker`), and a file whose name is not UTF-8 (an ERP writing
 * Windows-1252 names) is read, issued and reported instead of being ignored.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  type DaemonProcess,
  eventually,
  type Project,
  type TestEmulator,
} from '../helpers/daemon-harness.js';
import { daemonTest as test, type DaemonFixtures } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

async function start(
  daemonProject: DaemonFixtures['daemonProject'],
  watch: Record<string, unknown>,
): Promise<{ p: Project; emulator: TestEmulator; daemon: DaemonProcess }> {
  const { project, emulator, startDaemon } = await daemonProject({
    companies: [COMPANY_MAIN],
    stableMs: 200,
    watch,
  });
  return { p: project, emulator, daemon: await startDaemon() };
}

describe.each([false, true])('a file name in Windows-1252 bytes (usePolling %s)', (usePolling) => {
  test('is renamed to its decoding with one warning giving both names, then read, issued, reported and archived', async ({
    daemonProject,
  }) => {
    const { p, emulator, daemon } = await start(daemonProject, { usePolling });
    const dir = p.inbox('invoice');
    const raw = Buffer.from('facturaci\xf3n_a\xf1o.json', 'latin1');
    await writeFile(Buffer.concat([Buffer.from(`${dir}/`), raw]), jsonText([invoice(990_400_001)]));

    const warning = await daemon.waitForLog((l) => l.code === 'EDOC_READ_NAME_NOT_UTF8', 20_000);
    expect(warning.level).toBe('warn');
    expect(warning.originalName).toBe('facturaci\\xf3n_a\\xf1o.json');
    expect(warning.file).toBe(path.join(dir, 'facturación_año.json'));
    const result = await p.finalResult('invoice', 'facturación_año.json', { timeoutMs: 30_000 });
    expect(result.file).toBe('facturación_año.json');
    expect(result.counts).toMatchObject({ total: 1, accepted: 1 });
    expect((await emulator.client.issued()).map((d) => d.documentNumber)).toEqual([
      'SETP990400001',
    ]);
    await eventually(
      () => (readdirSync(dir).length === 0 ? true : undefined),
      'the inbox emptied',
      20_000,
    );
    expect(existsSync(path.join(p.outbox('invoice'), 'archive', 'facturación_año.json'))).toBe(
      true,
    );
    // the ledger keeps the original bytes
    const events = p.ledgerQuery<{ data: string }>(
      `SELECT data FROM events WHERE type = 'file-recorded'`,
    );
    expect(JSON.parse(events[0].data)).toMatchObject({ originalName: raw.toString('hex') });
    expect(daemon.logLines().filter((l) => l.code === 'EDOC_READ_NAME_NOT_UTF8')).toHaveLength(1);
  }, 120_000);
});

test('a Windows-1252 name left in the inbox while the daemon was down is taken at the next start', async ({
  daemonProject,
}) => {
  const { project, startDaemon } = await daemonProject({
    companies: [COMPANY_MAIN],
    stableMs: 200,
  });
  const dir = project.inbox('invoice');
  await mkdir(dir, { recursive: true });
  await writeFile(
    Buffer.concat([Buffer.from(`${dir}/`), Buffer.from('n\xf3mina_dic.json', 'latin1')]),
    jsonText([invoice(990_400_101)]),
  );
  const daemon = await startDaemon();
  await daemon.waitForLog((l) => l.code === 'EDOC_READ_NAME_NOT_UTF8', 20_000);
  const result = await project.finalResult('invoice', 'nómina_dic.json', { timeoutMs: 30_000 });
  expect(result.counts).toMatchObject({ total: 1, accepted: 1 });
}, 120_000);

test.for([false, true])(
  'a Windows-1252 name whose decoding was taken by a file in the inbox is renamed and taken once that file is archived (usePolling %s)',
  { timeout: 120_000 },
  async (usePolling, { daemonProject }) => {
    // the UTF-8 file is still being sent (latency) when the Latin-1 one arrives
    const { emulator, project, startDaemon } = await daemonProject({
      faults: { latencyMs: 1500 },
      companies: [COMPANY_MAIN],
      stableMs: 200,
      watch: { usePolling },
    });
    const daemon = await startDaemon();
    const dir = project.inbox('invoice');
    await writeFile(path.join(dir, 'café.json'), jsonText([invoice(990_400_201)]));
    await daemon.waitForLog((l) => l.msg === 'file read' && l.file === 'café.json', 20_000);
    await writeFile(
      Buffer.concat([Buffer.from(`${dir}/`), Buffer.from('caf\xe9.json', 'latin1')]),
      jsonText([invoice(990_400_203)]),
    );
    await daemon.waitForLog((l) => l.code === 'EDOC_READ_NAME_NOT_UTF8', 20_000);

    await eventually(
      async () => ((await emulator.client.issued()).length === 2 ? true : undefined),
      'both invoices issued',
      30_000,
    );
    await eventually(
      () => (readdirSync(dir).length === 0 ? true : undefined),
      'the inbox emptied',
      20_000,
    );
    const result = await project.finalResult('invoice', 'café.json', { timeoutMs: 30_000 });
    expect(result.documents.map((d) => d.key)).toEqual(['main/invoice/SETP/990400203']);
  },
);

describe('the done-marker convention (watch.doneMarker)', () => {
  test('a data file waits for its marker, is then taken at once, and the marker is deleted and never read as an input; a marker alone is left with one warning', async ({
    daemonProject,
  }) => {
    const { p, daemon } = await start(daemonProject, {
      doneMarker: { suffixes: ['.done', '.ok'] },
    });
    const dir = p.inbox('invoice');
    await writeFile(path.join(dir, 'marcado.json'), jsonText([invoice(990_500_001)]));
    // a later file with its marker goes through, while the earlier one still waits for its own
    await writeFile(path.join(dir, 'otro.json'), jsonText([invoice(990_500_002)]));
    await writeFile(path.join(dir, 'otro.json.ok'), '');
    await p.finalResult('invoice', 'otro.json', { timeoutMs: 30_000 });
    expect(await p.result('invoice', 'marcado.json')).toBeUndefined();
    expect(existsSync(path.join(dir, 'marcado.json'))).toBe(true);
    await eventually(
      () => (existsSync(path.join(dir, 'otro.json.ok')) ? undefined : true),
      'the marker deleted',
      20_000,
    );

    await writeFile(path.join(dir, 'marcado.json.done'), '');
    const result = await p.finalResult('invoice', 'marcado.json', { timeoutMs: 30_000 });
    expect(result.counts).toMatchObject({ total: 1, accepted: 1 });
    await eventually(
      () => (readdirSync(dir).length === 0 ? true : undefined),
      'the inbox emptied',
      20_000,
    );
    const taken = daemon
      .logLines()
      .filter((l) => l.msg === 'file taken')
      .map((l) => l.file);
    expect(taken.sort()).toEqual(['marcado.json', 'otro.json']);

    await writeFile(path.join(dir, 'solo.csv.done'), '');
    const alone = await daemon.waitForLog((l) => l.code === 'EDOC_READ_MARKER_ALONE', 20_000);
    expect(alone.file).toBe(path.join(dir, 'solo.csv.done'));
    expect(existsSync(path.join(dir, 'solo.csv.done'))).toBe(true);
    expect(await p.result('invoice', 'solo.csv.done')).toBeUndefined();
  }, 120_000);
});
