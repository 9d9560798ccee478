/**
 * The commit's fsync off the main thread (src/ledger/sql/wal-sync.ts): the SQLite ledger commits with
 * `synchronous = NORMAL` and resolves a call only after an fdatasync of the WAL on libuv's thread pool.
 * These tests hold every thread of that pool on real named pipes (an open of a FIFO blocks until a writer
 * comes), so no sync can run, and check what a caller may and may not see meanwhile; then let it run.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { collect, docs, fileInput, tempDir } from './helpers.js';

const POOL = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `p` settles within `ms` (timers need no pool thread). */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  p.then(() => { settled = true; }, () => { settled = true; });
  await wait(ms);
  return settled;
}

/** Holds every thread of libuv's pool until the returned function lets them go. */
async function holdThreadPool(): Promise<() => Promise<void>> {
  const dir = tempDir('edoc-pool-');
  const fifos = Array.from({ length: POOL }, (_, i) => path.join(dir, `hold-${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const readers = fifos.map((fifo) => fsp.open(fifo, 'r'));
  // the pool takes work in order: a stat queued behind the opens runs only once a thread is free
  const probe = fsp.stat(dir);
  if (await settlesWithin(probe, 150)) throw new Error('the thread pool is not held (is UV_THREADPOOL_SIZE larger?)');
  return async () => {
    for (const fifo of fifos) {
      // non-blocking: ENXIO until the reader's open runs, which it does as soon as a thread takes it
      for (;;) {
        try {
          fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
          await wait(5);
        }
      }
    }
    for (const handle of await Promise.all(readers)) await handle.close();
    await probe;
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

let release: (() => Promise<void>) | undefined;
const opened: Ledger[] = [];
afterEach(async () => {
  await release?.();
  release = undefined;
  for (const l of opened.splice(0)) await l.close();
});

async function ledgerWithDocuments(n = 2): Promise<{ ledger: Ledger; dir: string; ids: number[] }> {
  const dir = tempDir();
  const ledger = Ledger.open(dir);
  opened.push(ledger);
  const { fileId } = await ledger.recordFile(fileInput());
  await ledger.insertDocuments(fileId, docs(n), 1_000);
  await ledger.finishReading(fileId, 1_000);
  const ids = (await collect(ledger.iterateFileDocuments(fileId))).map((d) => d.id);
  return { ledger, dir, ids };
}

const stateOf = (ledger: Ledger, id: number): unknown =>
  (ledger.db.prepare('SELECT state FROM documents WHERE id = ?').get(id) as { state: string }).state;

describe('the SQLite ledger syncs each commit off the main thread before its caller may act', () => {
  it('a mark is committed at once but its promise resolves only after the WAL\'s sync', async () => {
    const { ledger, ids } = await ledgerWithDocuments();
    release = await holdThreadPool();
    const marked = ledger.markSending([ids[0]!], 2_000);
    // not acted on: no sync can run while the pool is held…
    expect(await settlesWithin(marked, 200)).toBe(false);
    // …though committed on the connection (the main thread did not wait for the disk)
    expect(stateOf(ledger, ids[0]!)).toBe('sending');
    await release();
    release = undefined;
    expect((await marked).sending).toEqual([ids[0]]);
  });

  it('a read that saw an unsynced commit waits for it; one that saw only synced commits answers at once', async () => {
    const { ledger, ids } = await ledgerWithDocuments();
    release = await holdThreadPool();
    // nothing waits for a sync: a read needs no thread of the pool
    expect((await ledger.getDocument(ids[0]!))?.state).toBe('pending');
    const marked = ledger.markSending([ids[0]!], 2_000);
    const read = ledger.getDocument(ids[0]!);
    expect(await settlesWithin(read, 200)).toBe(false);
    await release();
    release = undefined;
    expect((await read)?.state).toBe('sending');
    await marked;
  });

  it('a report snapshot is handed out only once every commit it holds is on disk', async () => {
    const { ledger, ids } = await ledgerWithDocuments();
    await ledger.markSending(ids, 2_000);
    release = await holdThreadPool();
    let verdictDone = false;
    const verdict = ledger.recordOutcome(ids[0]!, { state: 'accepted', resultCode: '200', httpStatus: 200 }, 3_000)
      .then((applied) => { verdictDone = true; return applied; });
    expect(await settlesWithin(verdict, 100)).toBe(false); // committed meanwhile, not synced
    const snap = ledger.snapshot();
    expect(await settlesWithin(snap, 200)).toBe(false);
    await release();
    release = undefined;
    const view = await snap;
    try {
      // the snapshot holds the verdict (taken after its commit) and came no earlier than the verdict's sync
      expect(verdictDone).toBe(true);
      const rows = await collect(view.iterateFileDocuments((await ledger.getDocument(ids[0]!))!.fileId));
      expect(rows.find((r) => r.id === ids[0])?.state).toBe('accepted');
    } finally {
      await view.close();
    }
    expect(await verdict).toBe(true);
  });

  it('close waits for the sync in flight, and the commit is there after a reopen', async () => {
    const { ledger, dir, ids } = await ledgerWithDocuments();
    release = await holdThreadPool();
    const marked = ledger.markSending([ids[1]!], 2_000);
    const closed = ledger.close();
    expect(await settlesWithin(closed, 100)).toBe(false);
    await release();
    release = undefined;
    await Promise.all([marked, closed]);
    const again = Ledger.open(dir);
    opened.push(again);
    expect((await again.getDocument(ids[1]!))?.state).toBe('sending');
  });
});
