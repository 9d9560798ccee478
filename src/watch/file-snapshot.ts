/**
 * Which file is at a path, and whether it is still the same: device, inode, size and mtime. The watcher
 * waits for a snapshot to settle before it hands a file out; the reader (src/read/file-snapshot.ts)
 * checks that the bytes it read are still that snapshot.
 */
import type { Stats } from 'node:fs';

export interface FileSnapshot {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

export function snapshotOf(stats: Stats): FileSnapshot {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

export function sameSnapshot(a: FileSnapshot, b: FileSnapshot): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

export function isGone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
