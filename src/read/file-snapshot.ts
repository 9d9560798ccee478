/**
 * A file must not change while it is read: the documents, the hash and the
 * outbox report all have to describe the same bytes. The reader notes the
 * file's inode, size and mtime when it opens it and checks them again when it
 * is done; anything different (or the file gone) is EDOC_READ_CHANGED.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { EdocError } from '../errors.js';

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

/**
 * `context.reason` tells the daemon what to do: 'gone' — nothing left to report
 * on or archive; 'changed' — the watcher hands the file out again once it is
 * stable, so this attempt can simply be dropped.
 */
export function changedError(file: string, detail: string, cause?: unknown): EdocError {
  const reason = cause !== undefined && isGone(cause) ? 'gone' : 'changed';
  return new EdocError('EDOC_READ_CHANGED', `${file} ${detail}`, { file, reason }, cause === undefined ? undefined : { cause });
}

/** Throws EDOC_READ_CHANGED unless the file at `file` is still exactly `expected`. */
export async function assertUnchanged(file: string, expected: FileSnapshot, bytesRead?: number): Promise<void> {
  let now: FileSnapshot;
  try {
    now = snapshotOf(await stat(file));
  } catch (err) {
    if (isGone(err)) throw changedError(file, 'disappeared while it was read', err);
    throw err;
  }
  if (!sameSnapshot(now, expected) || (bytesRead !== undefined && bytesRead !== expected.size)) {
    throw changedError(file, 'changed while it was read');
  }
}
