/**
 * A file must not change while it is read: the documents, the hash and the
 * outbox report all have to describe the same bytes. The reader notes the
 * file's inode, size and mtime when it opens it and checks them again when it
 * is done; anything different (or the file gone) is EDOC_READ_CHANGED.
 */
import type { Hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { isMainThread } from 'node:worker_threads';
import { EdocError } from '../errors.js';
import { isGone, sameSnapshot, snapshotOf, type FileSnapshot } from '../watch/file-snapshot.js';

// the identity of a file on disk is the watcher's (it waits for it to settle); the reader checks it still holds
export { isGone, sameSnapshot, snapshotOf, type FileSnapshot };

/**
 * `context.reason` tells the daemon what to do: 'gone' — nothing left to report
 * on or archive; 'changed' — the watcher hands the file out again once it is
 * stable, so this attempt can simply be dropped.
 */
export function changedError(file: string, detail: string, cause?: unknown): EdocError {
  const reason = cause !== undefined && isGone(cause) ? 'gone' : 'changed';
  return new EdocError(
    'EDOC_READ_CHANGED',
    `${file} ${detail}`,
    { file, reason },
    cause === undefined ? undefined : { cause },
  );
}

/** Throws EDOC_READ_CHANGED unless the file at `file` is still exactly `expected`. */
export async function assertUnchanged(
  file: string,
  expected: FileSnapshot,
  bytesRead?: number,
): Promise<void> {
  let now: FileSnapshot;
  try {
    now = snapshotOf(await stat(file));
  } catch (err) {
    goneWhileRead(file, err);
  }
  unchangedSince(file, now, expected, bytesRead);
}

/** Opens `file` to read it; a file already gone is EDOC_READ_CHANGED ("<file> <detail>", reason 'gone'). */
export async function openToRead(file: string, detail: string): Promise<FileHandle> {
  try {
    return await open(file, 'r');
  } catch (err) {
    if (isGone(err)) throw changedError(file, detail, err);
    throw err;
  }
}

/** The stat after a read failed: a file gone is EDOC_READ_CHANGED "disappeared while it was read". */
function goneWhileRead(file: string, err: unknown): never {
  if (isGone(err)) throw changedError(file, 'disappeared while it was read', err);
  throw err;
}

/** The file after the read (`now`) is still the one opened, and gave all its bytes. */
function unchangedSince(
  file: string,
  now: FileSnapshot,
  opened: FileSnapshot,
  bytesRead?: number,
): void {
  if (!sameSnapshot(now, opened) || (bytesRead !== undefined && bytesRead !== opened.size))
    throw changedError(file, 'changed while it was read');
}

/** The file opened is the one the caller saw (`expected`), if it said. */
function asExpected(file: string, opened: FileSnapshot, expected?: FileSnapshot): void {
  if (expected !== undefined && !sameSnapshot(opened, expected))
    throw changedError(file, 'changed before it was read');
}

export interface FileChunksOptions {
  chunkBytes: number;
  /** What the caller saw before; a different file at open is EDOC_READ_CHANGED "changed before it was read". */
  expected?: FileSnapshot;
  /** Ends "<file> disappeared before it was …" when the file is gone at open. @defaultValue 'read' */
  verb?: string;
  /** Fed with every byte read, in order (the intake checks the bytes the documents came from). */
  hash?: Hash;
}

/**
 * The bytes of one unchanged file, chunk by chunk, and (as the generator's
 * return value) the snapshot they belong to. The snapshot comes from the open
 * handle, so it describes the bytes read even if the path is replaced a moment
 * later; after the last chunk the file must still be that snapshot and have
 * given exactly its size. The buffer is reused: use a chunk before the next.
 */
export async function* fileChunks(
  file: string,
  options: FileChunksOptions,
): AsyncGenerator<Buffer, FileSnapshot, undefined> {
  if (!isMainThread) {
    const small = smallFile(file, options);
    if (small !== undefined) {
      for (let at = 0; at < small.bytes.length; at += options.chunkBytes) {
        const chunk = small.bytes.subarray(at, at + options.chunkBytes);
        options.hash?.update(chunk);
        yield chunk;
      }
      return small.snapshot;
    }
  }
  const handle = await openToRead(file, `disappeared before it was ${options.verb ?? 'read'}`);
  try {
    const snapshot = snapshotOf(await handle.stat());
    asExpected(file, snapshot, options.expected);
    const buffer = Buffer.allocUnsafe(Math.min(options.chunkBytes, Math.max(snapshot.size, 1)));
    let bytesRead = 0;
    // Up to the size the handle showed, no read past it to learn the end: a file that grew or shrank
    // since fails the check below as it did when that read was made (a read costs the worker a round
    // trip through the thread pool, and most files take one or two).
    while (bytesRead < snapshot.size) {
      const want = Math.min(buffer.length, snapshot.size - bytesRead);
      const { bytesRead: n } = await handle.read(buffer, 0, want, null);
      if (n === 0) break;
      bytesRead += n;
      options.hash?.update(buffer.subarray(0, n));
      yield buffer.subarray(0, n);
    }
    await assertUnchanged(file, snapshot, bytesRead);
    return snapshot;
  } finally {
    await handle.close();
  }
}

/**
 * Files up to this size are read with blocking calls off the main thread (the intake worker): open,
 * fstat, one read and a stat cost a few microseconds each there, where each call's trip through the
 * thread pool and back cost the worker ten times that (a burst of 200 files made ~1,000 of them).
 */
const SMALL_BYTES = 1024 * 1024;

/** `fileChunks`'s checks, its bytes in one buffer; undefined for a file larger than SMALL_BYTES. */
function smallFile(
  file: string,
  options: FileChunksOptions,
): { bytes: Buffer; snapshot: FileSnapshot } | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if (isGone(err))
      throw changedError(file, `disappeared before it was ${options.verb ?? 'read'}`, err);
    throw err;
  }
  try {
    const snapshot = snapshotOf(fstatSync(fd));
    if (snapshot.size > SMALL_BYTES) return undefined;
    asExpected(file, snapshot, options.expected);
    const bytes = Buffer.allocUnsafe(snapshot.size);
    let bytesRead = 0;
    while (bytesRead < snapshot.size) {
      const n = readSync(fd, bytes, bytesRead, snapshot.size - bytesRead, null);
      if (n === 0) break;
      bytesRead += n;
    }
    let now: FileSnapshot;
    try {
      now = snapshotOf(statSync(file));
    } catch (err) {
      goneWhileRead(file, err);
    }
    unchangedSince(file, now, snapshot, bytesRead);
    return { bytes: bytes.subarray(0, bytesRead), snapshot };
  } finally {
    closeSync(fd);
  }
}
