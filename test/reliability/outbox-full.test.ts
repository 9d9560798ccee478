/**
 * The outbox alone on a full disk (a share or a partition of its own filled up), the ledger on a disk
 * with room: documents go on being issued and recorded, the reports cannot be written. When space
 * returns every report is written with the true counts and the original archived once; the daemon
 * never exits, and no half-written temp file (or its open handle) is left behind. Before the fix a
 * failed errors.csv commit left the result.json and retry temp files open: each time hidden files in
 * the outbox, and in 3 runs of 5 the process died when the garbage collector closed a handle
 * (ERR_INVALID_STATE, exit 1). And with a few KiB left, the kernel writes part of a buffer without an
 * error: the report was committed torn at 8,192 bytes (invalid JSON, still torn after space returned).
 */
import { mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { buildCli, COMPANY_MAIN, eventually, sleep } from '../helpers/daemon-harness.js';
import {
  daemonTest as test,
  type DaemonFixtures,
  type TestResources,
} from '../helpers/daemon-fixture.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { mountSupport, SmallDisk } from '../helpers/small-disk.js';

const support = mountSupport();

beforeAll(async () => {
  if (support.ok) await buildCli();
}, 240_000);

/** A project whose outbox (only) lives on a fresh 4 MiB tmpfs, freed and unmounted after the test. */
async function outboxOnSmallDisk(
  daemonProject: DaemonFixtures['daemonProject'],
  resources: TestResources,
) {
  const setup = await daemonProject({
    faults: { latencyMs: 20 },
    companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 50, concurrency: 4 } }],
    retry: { maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 200 },
  });
  const p = setup.project;
  const disk = SmallDisk.mount(path.join(p.dir, 'disk'), 4);
  resources.defer(async () => {
    disk.free();
    disk.unmount();
  });
  await mkdir(path.join(disk.dir, 'outbox', 'invoice'), { recursive: true });
  await symlink(path.join(disk.dir, 'outbox'), path.join(p.dir, 'outbox'));
  return { ...setup, p, disk };
}

describe.skipIf(!support.ok)('the outbox on a full disk, the ledger not', () => {
  test('reports written and the original archived once space returns; no temp file left, no exit', async ({
    daemonProject,
    resources,
  }) => {
    const { emulator, p, disk, startDaemon } = await outboxOnSmallDisk(daemonProject, resources);
    const daemon = await startDaemon();
    disk.fill();
    // 30 invoices and one with a bad date: result.json, errors.csv (1 row) and the retry file all due
    const numbers = Array.from({ length: 30 }, (_, k) => 990_000_101 + k);
    const bad = invoice(990_000_200);
    bad.IssueDate = 'not a date';
    await p.drop('invoice', 'full.jsonl', jsonlText([...numbers.map((n) => invoice(n)), bad]));
    await eventually(
      async () => ((await emulator.client.issued()).length >= 30 ? true : undefined),
      'all issued while the outbox is full',
      60_000,
    );
    await daemon.waitForLog((l) => l.code === 'EDOC_STORAGE_FULL' && l.where === 'outbox');
    await sleep(3_000); // reports tried on the full disk meanwhile
    disk.free();
    const result = await p.finalResult('invoice', 'full.jsonl', { timeoutMs: 60_000 });
    expect(result.counts).toMatchObject({ total: 31, accepted: 30, invalid: 1 });
    await eventually(
      async () =>
        (
          await readdir(path.join(p.dir, 'outbox', 'invoice', 'archive')).catch((): string[] => [])
        ).includes('full.jsonl')
          ? true
          : undefined,
      'archived',
      30_000,
    );
    const errorsCsv = await readFile(
      path.join(p.dir, 'outbox', 'invoice', 'full.errors.csv'),
      'utf8',
    );
    expect(errorsCsv).toContain('IssueDate');
    const issued = (await emulator.client.issued({ kind: 'invoice' })).map((d) => Number(d.number));
    expect(issued.sort()).toEqual(numbers);
    expect(daemon.running, daemon.stderr).toBe(true);
    expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    expect(daemon.stderr).not.toContain('ERR_INVALID_STATE');
    const left = await readdir(path.join(p.dir, 'outbox', 'invoice'));
    expect(left.filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 180_000);

  test('a disk with a few KiB left: result.json is never a torn (short-written) file', async ({
    daemonProject,
    resources,
  }) => {
    const { emulator, p, disk, startDaemon } = await outboxOnSmallDisk(daemonProject, resources);
    const daemon = await startDaemon();
    // 8 KiB free: less than the report of 30 invoices (about 25 KiB), which the kernel then writes in part
    disk.fill(8_192);
    const numbers = Array.from({ length: 30 }, (_, k) => 990_000_301 + k);
    await p.drop('invoice', 'short.jsonl', jsonlText(numbers.map((n) => invoice(n))));
    const report = path.join(p.dir, 'outbox', 'invoice', 'short.result.json');
    const torn: string[] = [];
    const look = async (): Promise<void> => {
      const text = await readFile(report, 'utf8').catch(() => undefined);
      if (text === undefined) return;
      try {
        JSON.parse(text);
      } catch {
        torn.push(`${text.length} bytes: …${text.slice(-40)}`);
      }
    };
    await eventually(
      async () => {
        await look();
        return (await emulator.client.issued()).length >= 30 ? true : undefined;
      },
      'all issued',
      60_000,
    );
    for (let i = 0; i < 30; i++) {
      await look();
      await sleep(100);
    }
    disk.free();
    await sleep(5_000);
    await look();
    expect(torn).toEqual([]);
    const result = await p.finalResult('invoice', 'short.jsonl', { timeoutMs: 60_000 });
    expect(result.counts).toMatchObject({ total: 30, accepted: 30 });
    // the inbox is on another file system: the archive is a copy, which the full disk cut short
    const archive = path.join(p.dir, 'outbox', 'invoice', 'archive');
    await eventually(
      async () =>
        (await readdir(archive).catch((): string[] => [])).length > 0 ? true : undefined,
      'archived',
      30_000,
    );
    await sleep(1_000);
    expect(await readdir(archive)).toEqual(['short.jsonl']);
    expect(await readFile(path.join(archive, 'short.jsonl'), 'utf8')).toBe(
      jsonlText(numbers.map((n) => invoice(n))),
    );
    expect(daemon.running, daemon.stderr).toBe(true);
    expect(await daemon.stop()).toEqual({ code: 0, signal: null });
  }, 180_000);
});
