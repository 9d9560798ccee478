/**
 * The content hash the ledger uses to recognise the same file dropped again.
 * One streaming pass; the size and mtime returned are the ones the hash belongs
 * to (checked after the pass), so a reader can verify it reads the same bytes.
 */
import { createHash } from 'node:crypto';
import { fileChunks, type FileSnapshot } from './file-snapshot.js';

export interface FileHash extends FileSnapshot {
  sha256: string;
}

const CHUNK_BYTES = 256 * 1024;

export async function hashFile(file: string): Promise<FileHash> {
  const hash = createHash('sha256');
  // Iterated by hand: the snapshot is the generator's return value.
  const chunks = fileChunks(file, { chunkBytes: CHUNK_BYTES, verb: 'hashed' });
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) return { ...next.value, sha256: hash.digest('hex') };
    hash.update(next.value);
  }
}
