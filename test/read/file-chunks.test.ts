import { createHash } from 'node:crypto';
import { appendFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileChunks } from '../../src/read/file-snapshot.js';
import { hashFile } from '../../src/read/hash.js';
import { edocError, removeDir, tempDir } from './read-helpers.js';

/** Every chunk of the file (copied: the reader reuses its buffer), and what the generator returned. */
async function readAll(
  chunks: AsyncGenerator<Buffer, unknown>,
  between?: () => Promise<void>,
): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) return out;
    out.push(Buffer.from(next.value));
    await between?.();
  }
}

describe('fileChunks reads a file up to the size it had at open', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('gives every byte, in chunks of at most chunkBytes, for sizes around a chunk', async () => {
    for (const size of [0, 1, 9, 10, 11, 30, 31]) {
      const file = path.join(dir, `f${size}.txt`);
      const bytes = Buffer.from(Array.from({ length: size }, (_, i) => 97 + (i % 26)));
      await writeFile(file, bytes);
      const chunks = await readAll(fileChunks(file, { chunkBytes: 10 }));
      expect(Buffer.concat(chunks)).toEqual(bytes);
      expect(chunks.map((c) => c.length)).toEqual(
        Array.from({ length: Math.ceil(size / 10) }, (_, i) => Math.min(10, size - i * 10)),
      );
    }
  });

  it('a file that grows after it was opened is changed, even with every byte of its first size read', async () => {
    const file = path.join(dir, 'grows.jsonl');
    await writeFile(file, 'x'.repeat(25));
    const err = await edocError(
      readAll(fileChunks(file, { chunkBytes: 10 }), () => appendFile(file, 'y')),
      'EDOC_READ_CHANGED',
    );
    expect(err.context.reason).toBe('changed');
    // the same with the whole file in one chunk: the growth comes after its only read
    await writeFile(file, 'x'.repeat(25));
    await edocError(
      readAll(fileChunks(file, { chunkBytes: 100 }), () => appendFile(file, 'y')),
      'EDOC_READ_CHANGED',
    );
  });

  it('a file cut short after it was opened is changed', async () => {
    const file = path.join(dir, 'shrinks.jsonl');
    await writeFile(file, 'x'.repeat(25));
    await edocError(
      readAll(fileChunks(file, { chunkBytes: 10 }), () => truncate(file, 12)),
      'EDOC_READ_CHANGED',
    );
  });

  it('hashFile hashes every byte of a file one byte either side of its 256 KiB chunk', async () => {
    for (const size of [256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 3 * 256 * 1024 + 5]) {
      const file = path.join(dir, `h${size}.jsonl`);
      const bytes = Buffer.alloc(size, '{"a":1}\n');
      await writeFile(file, bytes);
      const h = await hashFile(file);
      expect(h.size).toBe(size);
      expect(h.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });
});
