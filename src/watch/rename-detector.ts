/**
 * Recognises a file that was renamed into place from a `*.part` / `*.tmp`
 * staging name, so it can be taken at once instead of after `stableMs`.
 *
 * Event order cannot be relied on: with fs.watch chokidar reports the new name
 * first and the old name's unlink ~100 ms later (its atomic-write window); with
 * polling it is the same or the reverse. So the detector remembers every
 * staging file it saw (name, and inode when it could still stat it) and, when a
 * new file appears, asks "is there a staging file with this inode (and birth
 * time), or named like this file plus `.part`/`.tmp`, that no longer exists?".
 * A rename keeps both, so that match is exact; the name match covers a staging file
 * that was renamed before we could stat it (the watcher notes staging names from the
 * kernel's events before chokidar could stat them: `noteName`).
 */
import path from 'node:path';
import type { Stats } from 'node:fs';
import { lstatOrGone } from './file-identity.js';
import { withoutStagingSuffix } from './file-names.js';

interface StagingEntry {
  dev?: number;
  ino?: number;
  /** 0 where the file system does not report a birth time. */
  birthtimeMs?: number;
  /** When the staging file was last known to be gone; undefined while it exists. */
  goneAt?: number;
}

/** Staging entries by folder, so a new file is matched against its own folder's only (an inbox per company). */
class StagingByFolder {
  private readonly folders = new Map<string, Map<string, StagingEntry>>();
  private count = 0;

  get(file: string): StagingEntry | undefined {
    return this.folders.get(path.dirname(file))?.get(file);
  }

  has(file: string): boolean {
    return this.get(file) !== undefined;
  }

  set(file: string, entry: StagingEntry): void {
    const dir = path.dirname(file);
    let folder = this.folders.get(dir);
    if (folder === undefined) this.folders.set(dir, (folder = new Map()));
    if (!folder.has(file)) this.count++;
    folder.set(file, entry);
  }

  delete(file: string): void {
    const dir = path.dirname(file);
    const folder = this.folders.get(dir);
    if (folder === undefined || !folder.delete(file)) return;
    this.count--;
    if (folder.size === 0) this.folders.delete(dir);
  }

  /** The entries of one folder, in the order they were first seen. */
  in(dir: string): Iterable<[string, StagingEntry]> {
    return [...(this.folders.get(dir) ?? [])];
  }

  *all(): Iterable<[string, StagingEntry]> {
    for (const folder of [...this.folders.values()]) yield* [...folder];
  }

  get size(): number {
    return this.count;
  }
}

export class RenameDetector {
  private readonly staging = new StagingByFolder();

  constructor(private readonly forgetAfterMs: number) {}

  /** A staging file was added or changed. */
  async seen(file: string): Promise<void> {
    const stats = await lstatOrGone(file);
    const previous = this.staging.get(file);
    if (stats === undefined) {
      this.staging.set(file, { ...previous, goneAt: Date.now() });
      return;
    }
    this.staging.set(file, { dev: stats.dev, ino: stats.ino, birthtimeMs: stats.birthtimeMs });
  }

  /**
   * A staging name the kernel reported (created, or renamed away): known at once by name, its inode
   * filled in by `seen` if it still exists when stat gets to it.
   */
  noteName(file: string): void {
    if (this.staging.has(file)) return;
    this.staging.set(file, {});
    void this.seen(file);
  }

  /** A staging file was unlinked (renamed away or deleted). */
  gone(file: string): void {
    const entry = this.staging.get(file);
    if (entry !== undefined) entry.goneAt = Date.now();
  }

  /** Was the file at `file` (with these stats) renamed in from a staging name we saw? */
  async renamedIn(file: string, stats: Stats): Promise<boolean> {
    for (const [stagingPath, entry] of this.staging.in(path.dirname(file))) {
      const sameName = withoutStagingSuffix(stagingPath) === file;
      const byInode =
        entry.ino !== undefined &&
        entry.ino === stats.ino &&
        entry.dev === stats.dev &&
        this.sameBirth(entry, stats, sameName);
      const byName = entry.ino === undefined && sameName;
      if (!byInode && !byName) continue;
      const now = await lstatOrGone(stagingPath);
      // A staging name that still points at the same inode is a hard link, not a rename.
      if (now !== undefined && now.ino === stats.ino && now.dev === stats.dev) continue;
      if (now !== undefined && byName) continue;
      this.staging.delete(stagingPath);
      return true;
    }
    return false;
  }

  /**
   * ext4 hands a deleted file's inode to the next new file at once, so an
   * inode match alone could take a file still being written after an aborted
   * `.part` was deleted. A rename keeps the birth time; a reused inode gets a
   * new one. Where the file system has no birth time, the names must match too.
   */
  private sameBirth(entry: StagingEntry, stats: Stats, sameName: boolean): boolean {
    if (entry.birthtimeMs !== undefined && entry.birthtimeMs > 0 && stats.birthtimeMs > 0)
      return entry.birthtimeMs === stats.birthtimeMs;
    return sameName;
  }

  /** Drop staging entries that disappeared long ago and were never matched. */
  prune(now = Date.now()): void {
    for (const [stagingPath, entry] of this.staging.all()) {
      if (entry.goneAt !== undefined && now - entry.goneAt > this.forgetAfterMs)
        this.staging.delete(stagingPath);
    }
  }

  /** Is this staging name known (seen, or noted by name)? */
  has(file: string): boolean {
    return this.staging.has(file);
  }

  get size(): number {
    return this.staging.size;
  }
}
