/**
 * What "the same content" means for the watcher without reading the file: the
 * same inode, size and mtime. A new file with the same name (re-drop after the
 * first was archived) has a new inode; an in-place rewrite changes mtime.
 */
import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';

export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

export function identityOf(stats: Stats): FileIdentity {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** lstat that answers `undefined` for a path that is gone instead of throwing. */
export async function lstatOrGone(file: string): Promise<Stats | undefined> {
  try {
    return await lstat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}
