/**
 * The original of a set (an export in two files, map/parts.ts) is both its files: it is archived
 * only while both still hold the content the set was read from (the set's hash over the parts'),
 * each part moved like a single file's original (report/archive.ts).
 */
import { archiveOriginal, sha256Of } from '../report/archive.js';
import { setDigest } from '../read/set-source.js';
import { lstat } from 'node:fs/promises';

interface PartNow {
  file: string;
  size: number;
  sha256: string;
}

async function partNow(file: string): Promise<PartNow | undefined> {
  try {
    const st = await lstat(file);
    if (!st.isFile()) return { file, size: st.size, sha256: '' };
    return { file, size: st.size, sha256: await sha256Of(file) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function partsNow(set: {
  header: string;
  lines: string;
}): Promise<{ header?: PartNow; lines?: PartNow }> {
  const header = await partNow(set.header);
  const lines = await partNow(set.lines);
  return { ...(header ? { header } : {}), ...(lines ? { lines } : {}) };
}

/** 'same' when both parts hash to the set's hash, 'gone' when either is gone, else 'changed'. */
export async function setState(
  set: { header: string; lines: string },
  sha256: string,
): Promise<'same' | 'gone' | 'changed'> {
  const now = await partsNow(set);
  // one part gone: a run stopped between the two moves (the other part stays, and waits for a partner)
  if (now.header === undefined || now.lines === undefined) return 'gone';
  return setDigest({ header: now.header.sha256, lines: now.lines.sha256 }) === sha256
    ? 'same'
    : 'changed';
}

/** Moves both parts to the archive when they are the set read; the header's archived path, or undefined. */
export async function archiveSet(
  set: { header: string; lines: string },
  sha256: string,
  archiveDir: string,
): Promise<string | undefined> {
  const now = await partsNow(set);
  if (now.header === undefined || now.lines === undefined) return undefined;
  if (setDigest({ header: now.header.sha256, lines: now.lines.sha256 }) !== sha256)
    return undefined;
  const header = await archiveOriginal(set.header, archiveDir, now.header);
  await archiveOriginal(set.lines, archiveDir, now.lines);
  return header;
}
