/**
 * Waits until a file's inode, size and mtime stayed the same for `stableMs` —
 * the watcher's stability rule, for `edoc-bridge submit`, which takes a file
 * that changed while it was read again once it is unchanged.
 */
import { sameSnapshot, snapshotOf, type FileSnapshot } from './file-snapshot.js';
import { lstatOrGone } from './file-identity.js';

/** Resolves true once stable, false when the file is gone or `signal` aborts. */
export async function waitUntilStable(
  file: string,
  stableMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const pollMs = Math.min(500, Math.max(25, Math.round(stableMs / 4)));
  let seen: FileSnapshot | undefined;
  let since = Date.now();
  for (;;) {
    if (signal?.aborted === true) return false;
    const stats = await lstatOrGone(file);
    if (stats === undefined) return false;
    const now = snapshotOf(stats);
    if (seen === undefined || !sameSnapshot(seen, now)) {
      seen = now;
      since = Date.now();
    } else if (Date.now() - since >= stableMs) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
