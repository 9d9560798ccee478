/**
 * Issue 12 item 10 against a REAL full disk: state/ and outbox/ of the project live on a small tmpfs
 * that a filler file fills to the last byte while documents flow, then frees again. The daemon (a
 * child process) must pause with one line, never exit, resume by itself, and in the end every document
 * is issued exactly once and reported once, with nothing left `sending`.
 */
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  eventually,
  type LogLine,
  type Project,
  type ResultJson,
} from '../helpers/daemon-harness.js';
import { runCli, spawnCli } from '../helpers/cli-runner.js';
import {
  daemonTest as test,
  type DaemonFixtures,
  type DaemonProject,
  type TestResources,
} from '../helpers/daemon-fixture.js';
import type { FaultSet } from '../helpers/emulator-client.js';
import { invoice, jsonlText, supportDocument, supportMarker } from '../helpers/documents.js';
import { mountSupport, SmallDisk } from '../helpers/small-disk.js';

const support = mountSupport();
if (!support.ok) process.stderr.write(`full-disk tests skipped: ${support.reason}\n`);

beforeAll(async () => {
  if (support.ok) await buildCli();
}, 240_000);

interface SmallDiskProject extends DaemonProject {
  p: Project;
  disk: SmallDisk;
}

/**
 * A project whose state/ and outbox/ are on a fresh tmpfs of `sizeMb`; logs/ stays on the real disk unless `logsOnDisk`.
 * The disk is freed and unmounted after the test, after the daemon stopped and before the folder goes.
 */
async function smallDiskProject(
  daemonProject: DaemonFixtures['daemonProject'],
  resources: TestResources,
  faults: FaultSet,
  sizeMb: number,
  rate: { requestsPerSecond: number; concurrency: number },
  logsOnDisk = false,
): Promise<SmallDiskProject> {
  const setup = await daemonProject({
    faults,
    companies: [{ ...COMPANY_MAIN, rate }],
    retry: { maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 200 },
  });
  const disk = SmallDisk.mount(path.join(setup.project.dir, 'disk'), sizeMb);
  resources.defer(async () => {
    disk.free();
    disk.unmount();
  });
  for (const sub of ['state', 'outbox', ...(logsOnDisk ? ['logs'] : [])]) {
    await mkdir(path.join(disk.dir, sub));
    await symlink(path.join(disk.dir, sub), path.join(setup.project.dir, sub));
  }
  return { ...setup, p: setup.project, disk };
}

const isPause = (l: LogLine): boolean => l.code === 'EDOC_STORAGE_FULL' && l.level === 'error';
const isResume = (l: LogLine): boolean =>
  l.code === 'EDOC_STORAGE_FULL' && l.msg.startsWith('storage writable again');

/** Every document accepted, each reported once. */
function expectAllAccepted(result: ResultJson, total: number): void {
  expect(result.counts).toMatchObject({ total, accepted: total });
  expect(new Set(result.documents.map((d) => d.index)).size).toBe(total);
  expect(result.documents.every((d) => d.status === 'accepted')).toBe(true);
}

describe.skipIf(!support.ok)(
  `full disk (tmpfs)${support.ok ? '' : ` — skipped: ${support.reason}`}`,
  () => {
    test('verdicts that cannot be committed while answers come back: one pause line, no crash, resumes by itself when space returns, each document issued once', async ({
      daemonProject,
      resources,
    }) => {
      const { emulator, p, disk, startDaemon } = await smallDiskProject(
        daemonProject,
        resources,
        { latencyMs: 1_500 },
        32,
        { requestsPerSecond: 50, concurrency: 4 },
      );
      const daemon = await startDaemon();
      const numbered = Array.from({ length: 12 }, (_, k) => invoice(990_000_001 + k));
      const unnumbered = Array.from({ length: 12 }, (_, k) =>
        supportDocument(undefined, `[doc-${k}]`),
      );
      await p.drop('invoice', 'numbered.jsonl', jsonlText(numbered));
      await p.drop('support-document', 'unnumbered.jsonl', jsonlText(unnumbered));
      await daemon.waitForLog((l) => l.msg === 'file read' && l.file === 'unnumbered.jsonl');
      await daemon.waitForLog((l) => l.msg === 'file read' && l.file === 'numbered.jsonl');
      // requests are in flight (1.5 s each): fill the disk under them
      await eventually(
        () => ((p.ledgerStates().sending ?? 0) >= 4 ? true : undefined),
        'requests in flight',
      );
      disk.fill();
      await daemon.waitForLog(isPause);
      // answers arrive while the disk is full: the authority issued more than the ledger could record
      await eventually(
        async () => {
          const issued = (await emulator.client.issued()).length;
          const recorded = p.ledgerStates().accepted ?? 0;
          return issued > recorded ? true : undefined;
        },
        'an answer that could not be committed',
        20_000,
      );
      const issuedWhileFull = (await emulator.client.issued()).length;
      expect(daemon.running).toBe(true);

      disk.free();
      await daemon.waitForLog(isResume, 60_000);
      const r1 = await p.finalResult('invoice', 'numbered.jsonl', { timeoutMs: 30_000 });
      const r2 = await p.finalResult('support-document', 'unnumbered.jsonl', { timeoutMs: 30_000 });
      expect(daemon.running).toBe(true);
      expectAllAccepted(r1, 12);
      expectAllAccepted(r2, 12);

      const invoices = (await emulator.client.issued({ kind: 'invoice' })).map((d) => d.number);
      expect(invoices.sort()).toEqual(numbered.map((d) => String(d.SerieNumber)).sort());
      const markers = new Map<string, number>();
      for (const d of await emulator.client.documents({
        kind: 'support-document',
        withRequest: true,
      })) {
        const m = supportMarker(d.request, /\[doc-\d+\]/) ?? '?';
        markers.set(m, (markers.get(m) ?? 0) + 1);
      }
      expect([...markers.values()].every((n) => n === 1)).toBe(true);
      expect(markers.size).toBe(12);
      expect(issuedWhileFull).toBeLessThan(24);
      expect(p.ledgerStates()).toEqual({ accepted: 24 });
      const lines = daemon.logLines();
      expect(lines.filter(isPause)).toHaveLength(1);
      expect(lines.filter(isResume)).toHaveLength(1);
      expect(daemon.stderr).not.toMatch(/^\s+at /m);
      expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    }, 120_000);

    test('stopped (SIGTERM) during the pause with answers it could not record: exits 0; the next start resends only what it must, each number issued once', async ({
      daemonProject,
      resources,
    }) => {
      const { emulator, p, disk, startDaemon } = await smallDiskProject(
        daemonProject,
        resources,
        { latencyMs: 1_500 },
        32,
        { requestsPerSecond: 50, concurrency: 4 },
      );
      let daemon = await startDaemon();
      const numbered = Array.from({ length: 10 }, (_, k) => invoice(990_000_001 + k));
      await p.drop('invoice', 'stop.jsonl', jsonlText(numbered));
      await daemon.waitForLog((l) => l.msg === 'file read' && l.file === 'stop.jsonl');
      await eventually(
        () => ((p.ledgerStates().sending ?? 0) >= 4 ? true : undefined),
        'requests in flight',
      );
      disk.fill();
      await daemon.waitForLog(isPause);
      await eventually(
        async () =>
          (await emulator.client.issued()).length > (p.ledgerStates().accepted ?? 0)
            ? true
            : undefined,
        'an answer that could not be committed',
        20_000,
      );
      expect(await daemon.stop()).toEqual({ code: 0, signal: null });
      expect(daemon.stderr).not.toMatch(/^\s+at /m);

      disk.free();
      daemon = await startDaemon();
      const result = await p.finalResult('invoice', 'stop.jsonl', { timeoutMs: 30_000 });
      expect(result.counts.total).toBe(10);
      // a verdict never recorded means its resend meets the repeated-number rule: in doubt (ours, held once), never a clash
      expect(
        result.documents.every(
          (d) =>
            d.status === 'accepted' || (d.status === 'in-doubt' && d.doubt === 'repeated-number'),
        ),
      ).toBe(true);
      const issued = (await emulator.client.issued({ kind: 'invoice' })).map((d) => d.number);
      expect(issued.sort()).toEqual(numbered.map((d) => String(d.SerieNumber)).sort());
      expect(p.ledgerStates().sending ?? 0).toBe(0);
    }, 120_000);

    test('an intake that fails mid-file (SQLITE_FULL) is taken again by itself when space returns: no touch, no restart', async ({
      daemonProject,
      resources,
    }) => {
      const { emulator, p, disk, startDaemon } = await smallDiskProject(
        daemonProject,
        resources,
        {},
        32,
        { requestsPerSecond: 200, concurrency: 8 },
      );
      const daemon = await startDaemon();
      disk.fill(200 * 1024);
      const total = 400;
      const requests = Array.from({ length: total }, (_, k) => invoice(990_000_001 + k));
      await p.drop('invoice', 'big.jsonl', jsonlText(requests));
      await daemon.waitForLog(isPause);
      await daemon.waitForLog((l) => l.msg === 'file taken' && l.file === 'big.jsonl');
      const stored = p.ledgerQuery<{ n: number }>('SELECT count(*) AS n FROM documents')[0].n;
      expect(stored).toBeLessThan(total);
      expect(
        p.ledgerQuery<{ state: string }>(`SELECT state FROM files WHERE name = 'big.jsonl'`),
      ).toEqual([{ state: 'reading' }]);
      expect(daemon.running).toBe(true);

      disk.free();
      await daemon.waitForLog(isResume, 60_000);
      const result = await p.finalResult('invoice', 'big.jsonl', { timeoutMs: 60_000 });
      expectAllAccepted(result, total);
      const issued = (await emulator.client.issued({ kind: 'invoice' })).map((d) => d.number);
      expect(issued).toHaveLength(total);
      expect(new Set(issued).size).toBe(total);
      expect(p.ledgerStates()).toEqual({ accepted: total });
      expect(daemon.logLines().filter(isPause)).toHaveLength(1);
      expect(daemon.logLines().filter((l) => l.msg === 'file could not be read')).toEqual([]);
      expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    }, 120_000);

    test('a daemon started on a full disk waits with one line instead of exiting (no restart loop), and starts when space returns', async ({
      daemonProject,
      resources,
    }) => {
      const { p, disk, spawnDaemon } = await smallDiskProject(daemonProject, resources, {}, 32, {
        requestsPerSecond: 50,
        concurrency: 4,
      });
      disk.fill();
      const daemon = spawnDaemon();
      const waiting = await daemon.waitForLog(
        (l) => l.code === 'EDOC_STORAGE_FULL' && l.level === 'error',
        30_000,
      );
      expect(waiting.msg).toMatch(/cannot start yet/);
      await p.drop('invoice', 'early.jsonl', jsonlText([invoice(990_000_001)]));
      expect(daemon.running).toBe(true);
      disk.free();
      await daemon.waitForLog((l) => l.msg === 'watching the inbox', 60_000);
      const result = await p.finalResult('invoice', 'early.jsonl', { timeoutMs: 30_000 });
      expectAllAccepted(result, 1);
      expect(
        daemon.logLines().filter((l) => l.code === 'EDOC_STORAGE_FULL' && l.level === 'error'),
      ).toHaveLength(1);
      expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    }, 120_000);

    test('the log file on the full disk too: the daemon does not die, and logs again once space returns', async ({
      daemonProject,
      resources,
    }) => {
      const { p, disk, startDaemon } = await smallDiskProject(
        daemonProject,
        resources,
        {},
        32,
        { requestsPerSecond: 50, concurrency: 4 },
        true,
      );
      const daemon = await startDaemon();
      disk.fill();
      // the last page of the log file holds some slack: use it up with empty lines (NDJSON readers skip them)
      const { appendFileSync } = await import('node:fs');
      for (;;) {
        try {
          appendFileSync(p.logFile, '\n'.repeat(64));
        } catch {
          break;
        }
      }
      await p.drop('invoice', 'one.jsonl', jsonlText([invoice(990_000_001), invoice(990_000_002)]));
      // nothing can be written, not even the log: the process must simply still be there
      await eventually(
        () => (daemon.stderr.includes('cannot write the log file') ? true : undefined),
        'the log failure on stderr',
        20_000,
      );
      expect(daemon.running).toBe(true);
      disk.free();
      const result = await p.finalResult('invoice', 'one.jsonl', { timeoutMs: 60_000 });
      expectAllAccepted(result, 2);
      await daemon.waitForLog((l) => l.msg === 'file complete');
      expect(
        p
          .logLines()
          .some((l) => l.msg.startsWith('the log file could not be written') && Number(l.lost) > 0),
      ).toBe(true);
      expect(daemon.running).toBe(true);
      expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    }, 120_000);

    test('edoc-bridge submit on a disk that fills up: a clear error and exit code 1, no stack; the re-run issues nothing twice', async ({
      daemonProject,
      resources,
    }) => {
      const { emulator, p, disk } = await smallDiskProject(
        daemonProject,
        resources,
        { latencyMs: 300 },
        32,
        { requestsPerSecond: 50, concurrency: 2 },
      );
      const total = 30;
      const requests = Array.from({ length: total }, (_, k) => invoice(990_000_001 + k));
      const file = path.join(p.dir, 'lote.jsonl');
      const { writeFile } = await import('node:fs/promises');
      await writeFile(file, jsonlText(requests));
      const run = spawnCli(p, ['submit', file, '--kind', 'invoice']);
      await eventually(
        () => {
          try {
            return (p.ledgerStates().accepted ?? 0) >= 4 ? true : undefined;
          } catch {
            return undefined; // no ledger yet
          }
        },
        'some documents accepted',
        30_000,
      );
      disk.fill();
      const first = await run.done;
      expect(first.code).toBe(1);
      expect(first.stderr).toContain('EDOC_STORAGE_FULL');
      expect(first.stderr).not.toMatch(/^\s+at /m);
      const issuedBefore = (await emulator.client.issued()).length;
      expect(issuedBefore).toBeLessThan(total);

      disk.free();
      const second = await runCli(p, ['submit', file, '--kind', 'invoice'], { timeoutMs: 60_000 });
      expect(second.stderr).not.toMatch(/^\s+at /m);
      expect([0, 1]).toContain(second.code);
      const result = await p.result('invoice', 'lote.jsonl');
      expect(result?.counts.total).toBe(total);
      expect(
        result?.documents.every(
          (d) =>
            d.status === 'accepted' || (d.status === 'in-doubt' && d.doubt === 'repeated-number'),
        ),
      ).toBe(true);
      const issued = (await emulator.client.issued({ kind: 'invoice' })).map((d) => d.number);
      expect(issued).toHaveLength(total);
      expect(new Set(issued).size).toBe(total);
      expect(p.ledgerStates().sending ?? 0).toBe(0);
    }, 120_000);
  },
);
