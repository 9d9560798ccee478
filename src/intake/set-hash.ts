/**
 * The content hash and the change check of an intake unit that is a set (an export in two files,
 * map/parts.ts): the set's hash is read/set-source.ts `setDigest` of its parts' SHA-256, header
 * first; the set changed when either part did (inode, size, mtime) or the bytes read differ.
 */
import { stat } from 'node:fs/promises';
import { hashFile, type FileHash } from '../read/hash.js';
import { isGone, sameSnapshot, snapshotOf } from '../read/file-snapshot.js';
import { setDigest } from '../read/set-source.js';

/** One file of an export in two files (map/parts.ts), as the watcher found it complete. */
export interface SetPart {
  path: string;
  size: number;
  mtimeMs: number;
  /** Its done marker: removed once the set is in the ledger for good. */
  marker?: string;
}

export interface SetHash {
  sha256: string;
  size: number;
  mtimeMs: number;
  header: FileHash;
  lines: FileHash;
}

/** Hashes both parts (an EDOC_READ_CHANGED of either throws as for one file). */
export async function hashSet(parts: { header: SetPart; lines: SetPart }): Promise<SetHash> {
  const header = await hashFile(parts.header.path);
  const lines = await hashFile(parts.lines.path);
  return {
    sha256: setDigest({ header: header.sha256, lines: lines.sha256 }),
    size: header.size + lines.size,
    mtimeMs: Math.max(header.mtimeMs, lines.mtimeMs),
    header,
    lines,
  };
}

/** 'gone', 'changed', or undefined when both parts are the files hashed and the bytes read hash to the set's hash. */
export async function setChangedSince(
  parts: { header: SetPart; lines: SetPart },
  taken: SetHash,
  readSha256: string,
): Promise<'gone' | 'changed' | undefined> {
  for (const [part, hashed] of [
    [parts.header, taken.header],
    [parts.lines, taken.lines],
  ] as const) {
    try {
      if (!sameSnapshot(snapshotOf(await stat(part.path)), hashed)) return 'changed';
    } catch (err) {
      if (isGone(err)) return 'gone';
      throw err;
    }
  }
  return readSha256 === taken.sha256 ? undefined : 'changed';
}
