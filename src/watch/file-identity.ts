/**
 * What "the same content" means for the watcher without reading the file: the
 * same inode, size and mtime — the reader's FileSnapshot (read/file-snapshot.ts),
 * so the watcher and the reader agree on when a file is still the same. A new
 * file with the same name (re-drop after the first was archived) has a new
 * inode; an in-place rewrite changes mtime.
 */
import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { isGone } from './file-snapshot.js';

/** lstat that answers `undefined` for a path that is gone instead of throwing. */
export async function lstatOrGone(file: string): Promise<Stats | undefined> {
  try {
    return await lstat(file);
  } catch (err) {
    if (isGone(err)) return undefined;
    throw err;
  }
}

/** What an inbox entry that is not a regular file is, in the words of the warning that skips it. */
export function nonFileType(stats: Stats): string {
  return stats.isSymbolicLink()
    ? 'symbolic link'
    : stats.isDirectory()
      ? 'directory'
      : 'special file';
}
