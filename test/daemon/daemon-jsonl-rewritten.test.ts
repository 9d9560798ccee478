/**
 * A JSONL export rewritten in place by a pausing writer while the daemon reads it: the daemon reads a
 * JSONL file in one pass by what its content hash's pass saw (read/text-facts.ts), so bytes that pass
 * did not see (here a line longer than read.maxRecordBytes, at the same size and mtime) are the file
 * changing, not a file to refuse: nothing of it is issued or reported, and the complete file the writer
 * leaves is read, issued once and reported once. Real daemon (frozen with SIGSTOP mid-read), real
 * emulator over HTTP, real files.
 */
import { rename, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import {
  buildCli,
  COMPANY_MAIN,
  type DaemonProcess,
  type Project,
} from '../helpers/daemon-harness.js';
import {
  BUILD_TIMEOUT_MS,
  daemonTest as test,
  type DaemonFixtures,
  type DaemonProjectOptions,
} from '../helpers/daemon-fixture.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

/** Whole seconds: utimes sets them again exactly. */
const MTIME = new Date('2026-11-20T12:00:00Z');

/** Drops `text` as invoice/`name` (mtime MTIME) and freezes the daemon (SIGSTOP) once it took the file, mid-read. */
async function dropAndFreeze(p: Project, daemon: DaemonProcess, name: string, text: string) {
  const staged = path.join(p.inbox('invoice'), `${name}.part`);
  await writeFile(staged, text);
  await utimes(staged, MTIME, MTIME);
  const file = path.join(p.inbox('invoice'), name);
  await rename(staged, file);
  await daemon.waitForLog((l) => l.msg === 'file taken' && l.file === name, 30_000);
  daemon.signal('SIGSTOP');
  expect(
    p.ledgerQuery<{ state: string }>(`SELECT state FROM files WHERE name = ?`, name),
    'the read ended before the test could freeze the daemon: make the file bigger',
  ).toEqual([{ state: 'reading' }]);
  return file;
}

/** One company sending fast, the daemon started on it. */
async function started(
  daemonProject: DaemonFixtures['daemonProject'],
  read?: DaemonProjectOptions['read'],
) {
  const { project, emulator, startDaemon } = await daemonProject({
    companies: [{ ...COMPANY_MAIN, rate: { requestsPerSecond: 400, concurrency: 8 } }],
    stableMs: 200,
    ...(read && { read }),
  });
  return { p: project, emulator, daemon: await startDaemon() };
}

describe('a JSONL export rewritten while it is read', () => {
  test('a line too long for a moment, at the same size and mtime: taken again, not refused; the finished file issued once', async ({
    daemonProject,
  }) => {
    // one invoice line is 2,196 characters, two joined more than 4,096
    const { p, emulator, daemon } = await started(daemonProject, { maxRecordBytes: 4_096 });
    // big enough that its read takes far longer than the test needs to see 'file taken' and freeze the daemon
    const count = 3_000;
    const first = 990_600_000;
    const text = jsonlText(Array.from({ length: count }, (_, i) => invoice(first + i)));
    const file = await dropAndFreeze(p, daemon, 'ventas.jsonl', text);
    // the writer mid-rewrite: the last line break a blank, the last two invoices one line of > 4,096 bytes
    const cut = text.lastIndexOf('\n', text.length - 2);
    const partial = `${text.slice(0, cut)} ${text.slice(cut + 1)}`;
    expect(Buffer.byteLength(partial)).toBe(Buffer.byteLength(text));
    await writeFile(file, partial);
    await utimes(file, MTIME, MTIME);
    daemon.signal('SIGCONT');

    const seen = await daemon.waitForLog(
      (l) =>
        l.file === 'ventas.jsonl' &&
        (l.code === 'EDOC_READ_CHANGED' || l.msg === 'file could not be read'),
      60_000,
    );
    expect([seen.code, seen.msg]).toEqual([
      'EDOC_READ_CHANGED',
      'the file changed while it was read: nothing of it was sent; it is taken again once it is unchanged',
    ]);
    // the writer finishes: the whole export again, a new mtime
    await writeFile(file, text);

    const result = await p.finalResult('invoice', 'ventas.jsonl', { timeoutMs: 180_000 });
    expect(result.error).toBeUndefined();
    expect(result.counts).toMatchObject({ total: count, accepted: count, duplicate: 0 });
    const numbers = (await emulator.client.issued()).map((d) => d.documentNumber);
    expect(numbers).toHaveLength(count);
    expect(new Set(numbers).size).toBe(count);
    expect(p.logLines().filter((l) => l.msg === 'file could not be read')).toEqual([]);
  }, 300_000);

  test('other invoices at the same size and mtime, the hash seeing the first ones: none of those issued, the new ones issued once', async ({
    daemonProject,
  }) => {
    const { p, emulator, daemon } = await started(daemonProject);
    const count = 3_000;
    // 990,700,000 + i and 990,710,000 + i have as many digits: the two exports are the same size
    const before = jsonlText(Array.from({ length: count }, (_, i) => invoice(990_700_000 + i)));
    const after = jsonlText(Array.from({ length: count }, (_, i) => invoice(990_710_000 + i)));
    expect(Buffer.byteLength(after)).toBe(Buffer.byteLength(before));
    const file = await dropAndFreeze(p, daemon, 'otras.jsonl', before);
    await writeFile(file, after);
    await utimes(file, MTIME, MTIME);
    daemon.signal('SIGCONT');

    const result = await p.finalResult('invoice', 'otras.jsonl', { timeoutMs: 180_000 });
    expect(result.error).toBeUndefined();
    expect(result.counts).toMatchObject({ total: count, accepted: count });
    const numbers = (await emulator.client.issued()).map((d) => d.documentNumber).sort();
    expect(numbers).toEqual(
      Array.from({ length: count }, (_, i) => `SETP${990_710_000 + i}`).sort(),
    );
  }, 300_000);
});
