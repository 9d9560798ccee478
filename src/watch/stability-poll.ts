/**
 * The inbox watcher's stability rule, checked by polling `lstat` while any file is pending: a file is
 * ready once its inode, size and mtime held still for `stableMs` — or, with done markers on, once its
 * marker exists. The poll runs only while something is pending, one check at a time.
 */
import type { Stats } from 'node:fs';
import { lstatOrGone } from './file-identity.js';
import { sameSnapshot, snapshotOf, type FileSnapshot } from './file-snapshot.js';
import type { DoneMarkers } from './done-markers.js';
import type { InboxFolder, ReadyFile, WatchLogger } from './watch-types.js';

/** A file the watcher knows of: waiting for the rule, or handed out. */
export interface Entry {
  folder: InboxFolder;
  state: 'pending' | 'taken';
  identity: FileSnapshot;
  /** When the current identity was first observed. */
  since: number;
}

export interface StabilityPollOptions {
  pollMs: number;
  stableMs: number;
  /** The watcher's files by path (shared: the watcher adds and hands out, the poll decides). */
  entries: Map<string, Entry>;
  markers: DoneMarkers;
  logger: WatchLogger;
  closed(): boolean;
  /** Before each check (the rename detector forgets old staging files). */
  beforeCheck(): void;
  /** The file met the rule: hand it out. */
  take(
    file: string,
    folder: InboxFolder,
    identity: FileSnapshot,
    via: ReadyFile['via'],
    marker?: string,
  ): void;
  /** The pending path is no longer a regular file. */
  skipNonFile(file: string, stats: Stats, folder: InboxFolder): void;
}

export class StabilityPoll {
  private ticker: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(private readonly o: StabilityPollOptions) {}

  /** A file is pending: poll until none is. */
  ensure(): void {
    if (this.ticker !== undefined || this.o.closed()) return;
    this.ticker = setInterval(() => this.tick(), this.o.pollMs);
  }

  stop(): void {
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  private tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    this.check()
      .catch((err: unknown) => this.o.logger.error({ err }, 'inbox watcher poll failed'))
      .finally(() => {
        this.ticking = false;
      });
  }

  private async check(): Promise<void> {
    const { entries, markers } = this.o;
    this.o.beforeCheck();
    const pending = [...entries].filter(([, entry]) => entry.state === 'pending');
    if (pending.length === 0) {
      this.stop();
      return;
    }
    for (const [file, entry] of pending) {
      if (this.o.closed()) return;
      const stats = await lstatOrGone(file);
      if (entries.get(file) !== entry || entry.state !== 'pending') continue;
      if (stats === undefined) {
        entries.delete(file);
        continue;
      }
      if (!stats.isFile()) {
        this.o.skipNonFile(file, stats, entry.folder);
        continue;
      }
      const identity = snapshotOf(stats);
      const now = Date.now();
      if (!sameSnapshot(identity, entry.identity)) {
        entry.identity = identity;
        entry.since = now;
      } else if (markers.enabled) {
        const marker = await markers.markerOf(file);
        if (marker !== undefined && entries.get(file) === entry && !this.o.closed())
          this.o.take(file, entry.folder, identity, 'marker', marker);
      } else if (now - entry.since >= this.o.stableMs) {
        this.o.take(file, entry.folder, identity, 'stable');
      }
    }
  }
}
