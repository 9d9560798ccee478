/**
 * The content hash the ledger uses to recognise the same file dropped again.
 * One streaming pass; the size and mtime returned are the ones the hash belongs
 * to (checked after the pass), so a reader can verify it reads the same bytes.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { assertUnchanged, changedError, isGone, snapshotOf, type FileSnapshot } from './file-snapshot.js';

export interface FileHash extends FileSnapshot {
  sha256: string;
}

const CHUNK_BYTES = 256 * 1024;

export async function hashFile(file: string): Promise<FileHash> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if (isGone(err)) throw changedError(file, 'disappeared before it was hashed', err);
    throw err;
  }
  try {
    const snapshot = snapshotOf(await handle.stat());
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let bytesRead = 0;
    for (;;) {
      const { bytesRead: n } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      bytesRead += n;
      hash.update(buffer.subarray(0, n));
    }
    await assertUnchanged(file, snapshot, bytesRead);
    return { ...snapshot, sha256: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}
