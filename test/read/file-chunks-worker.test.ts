// fileChunks off the main thread (the intake worker): files up to 1 MiB are read with blocking calls
// (read/file-snapshot.ts smallFile), larger ones as on the main thread. Run in a real worker thread on
// the build (dist/), as the intake worker runs it.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from './read-helpers.js';

const DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');

interface Outcome {
  isMainThread: boolean;
  chunks?: number[];
  sha256?: string;
  snapshot?: { size: number };
  error?: { code?: string; message: string; reason?: string };
}

/** Reads `file` with fileChunks in a fresh worker thread; `expected`: the snapshot the caller saw. */
function readInWorker(
  file: string,
  chunkBytes: number,
  expected?: { dev: number; ino: number; size: number; mtimeMs: number },
): Promise<Outcome> {
  const source = `
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createHash } from 'node:crypto';
const { fileChunks } = await import(workerData.module);
const hash = createHash('sha256');
const chunks = [];
try {
  const it = fileChunks(workerData.file, { chunkBytes: workerData.chunkBytes, hash, ...(workerData.expected && { expected: workerData.expected }) });
  for (;;) {
    const next = await it.next();
    if (next.done) { parentPort.postMessage({ isMainThread, chunks, sha256: hash.digest('hex'), snapshot: { size: next.value.size } }); break; }
    chunks.push(next.value.length);
  }
} catch (err) {
  parentPort.postMessage({ isMainThread, error: { code: err.code, message: err.message, reason: err.context?.reason } });
}`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, {
      eval: true,
      workerData: {
        module: path.join(DIST, 'read', 'file-snapshot.js'),
        file,
        chunkBytes,
        expected,
      },
    });
    worker.once('message', (m: Outcome) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('fileChunks on the intake worker', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('gives every byte of a small file in chunks of at most chunkBytes, hashed as given', async () => {
    const file = path.join(dir, 'small.jsonl');
    // 25 bytes: chunks of 10, 10 and 5
    const bytes = Buffer.from('abcdefghijklmnopqrstuvwxy');
    await writeFile(file, bytes);
    const out = await readInWorker(file, 10);
    expect(out.isMainThread).toBe(false);
    expect(out.chunks).toEqual([10, 10, 5]);
    expect(out.sha256).toBe(sha(bytes));
    expect(out.snapshot).toEqual({ size: 25 });
  });

  it('reads an empty file as no chunk', async () => {
    const file = path.join(dir, 'empty.jsonl');
    await writeFile(file, '');
    const out = await readInWorker(file, 10);
    expect(out.chunks).toEqual([]);
    expect(out.snapshot).toEqual({ size: 0 });
  });

  it('reads a file over 1 MiB whole too (the streamed path)', async () => {
    const file = path.join(dir, 'large.jsonl');
    // 1 MiB + 1 byte = 1,048,577 bytes: chunks of 262,144 × 4 and 1
    const bytes = Buffer.alloc(1024 * 1024 + 1, 0x61);
    await writeFile(file, bytes);
    const out = await readInWorker(file, 256 * 1024);
    expect(out.chunks).toEqual([262144, 262144, 262144, 262144, 1]);
    expect(out.sha256).toBe(sha(bytes));
  });

  it('a file gone before the read is EDOC_READ_CHANGED, reason gone', async () => {
    const out = await readInWorker(path.join(dir, 'missing.jsonl'), 10);
    expect(out.error).toMatchObject({ code: 'EDOC_READ_CHANGED', reason: 'gone' });
    expect(out.error?.message).toContain('disappeared before it was read');
  });

  it('a file other than the one the caller saw is EDOC_READ_CHANGED, reason changed', async () => {
    const file = path.join(dir, 'changed.jsonl');
    await writeFile(file, 'abc');
    const { stat } = await import('node:fs/promises');
    const s = await stat(file);
    // the caller saw 2 bytes; the file holds 3
    const out = await readInWorker(file, 10, {
      dev: s.dev,
      ino: s.ino,
      size: 2,
      mtimeMs: s.mtimeMs,
    });
    expect(out.error).toMatchObject({ code: 'EDOC_READ_CHANGED', reason: 'changed' });
    expect(out.error?.message).toContain('changed before it was read');
  });
});
