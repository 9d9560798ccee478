/**
 * Watches the inbox folders and hands out files that are complete.
 *
 * chokidar only tells us that something happened in a folder; whether a file is
 * complete is decided here, by polling `lstat` ourselves: a file is ready when
 * its inode, size and mtime stayed the same for `stableMs`, or at once when it
 * was renamed in from a `*.part` / `*.tmp` name (see rename-detector.ts).
 * chokidar's own `awaitWriteFinish` is not used because it compares size only
 * (an in-place rewrite of the same length passes), does not apply to the files
 * found by the initial scan (it waits only after 'ready'), and would also delay
 * renamed-in files, which must be taken at once.
 *
 * With the done-marker convention on (done-markers.ts), a file is taken only
 * once its marker exists, and then at once. A name that is not UTF-8 is
 * renamed to its Windows-1252 decoding first (non-utf8-names.ts).
 *
 * Each content is handed out once per path: a path stays "taken" until its file
 * is removed (archived) or replaced by a different inode / size / mtime, and a
 * later file under the same name is a new drop.
 */
import path from 'node:path';
import { makeInboxFolder } from './inbox-folder.js';
import type { Stats } from 'node:fs';
import { sameSnapshot, snapshotOf, type FileSnapshot } from './file-snapshot.js';
import { lstatOrGone, nonFileType } from './file-identity.js';
import { isHiddenName, isStagingName } from './file-names.js';
import { RenameDetector } from './rename-detector.js';
import { FolderEvents } from './folder-events.js';
import { StabilityPoll, type Entry } from './stability-poll.js';
import { ReadyQueue } from './ready-queue.js';
import { DoneMarkers } from './done-markers.js';
import type { InboxFolder, InboxWatcherOptions, ReadyFile, WatchLogger } from './watch-types.js';
import { NameRepair } from './non-utf8-names.js';

export type { InboxFolder, InboxWatcherOptions, ReadyFile, WatchLogger } from './watch-types.js';

const SILENT: WatchLogger = { warn: () => undefined, error: () => undefined };

export class InboxWatcher {
  private readonly configured: InboxFolder[] = [];
  /** Keyed by the real path of each folder: chokidar does not enter a symlinked root with followSymlinks off. */
  private readonly folders = new Map<string, InboxFolder>();
  private readonly stableMs: number;
  private readonly usePolling: boolean;
  private readonly logger: WatchLogger;
  private readonly pollMs: number;
  /** chokidar's poll interval with `usePolling`, and that of the watcher's own folder listing. */
  private readonly folderPollMs: number;
  private readonly entries = new Map<string, Entry>();
  private readonly warned = new Set<string>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly renames: RenameDetector;
  private readonly markers: DoneMarkers;
  private readonly names: NameRepair;
  private readonly queue = new ReadyQueue<ReadyFile>();
  /** chokidar and what fills its gaps (folder-events.ts). */
  private events: FolderEvents | undefined;
  /** The stability rule's poll (stability-poll.ts). */
  private readonly poll: StabilityPoll;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: InboxWatcherOptions) {
    for (const folder of options.folders) {
      this.configured.push({ ...folder, dir: path.resolve(folder.dir) });
    }
    this.stableMs = options.stableMs ?? 1000;
    this.usePolling = options.usePolling ?? false;
    this.logger = options.logger ?? SILENT;
    this.pollMs = Math.min(500, Math.max(25, Math.round(this.stableMs / 4)));
    this.folderPollMs = Math.min(1000, Math.max(100, Math.round(this.stableMs / 2)));
    this.renames = new RenameDetector(Math.max(5000, this.stableMs * 2));
    this.markers = new DoneMarkers(options.doneMarker);
    this.poll = new StabilityPoll({
      pollMs: this.pollMs,
      stableMs: this.stableMs,
      entries: this.entries,
      markers: this.markers,
      logger: this.logger,
      closed: () => this.closed,
      beforeCheck: () => this.renames.prune(),
      take: (file, folder, identity, via, marker) => this.take(file, folder, identity, via, marker),
      skipNonFile: (file, stats, folder) => this.skipNonFile(file, stats, folder),
    });
    this.names = new NameRepair(this.logger, (dir) => ({
      kind: this.folders.get(dir)?.kind,
      company: this.folders.get(dir)?.company,
    }));
  }

  /** Create missing folders, scan what is there, then watch. Resolves once the initial scan is done. */
  start(): Promise<void> {
    this.starting ??= this.doStart();
    return this.starting;
  }

  /** The ready files, in the order they became ready; ends when the watcher is closed. Single consumer. */
  files(): AsyncIterableIterator<ReadyFile> {
    return this.queue;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ReadyFile> {
    return this.files();
  }

  /** Files waiting to be pulled. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Hands out a company's taken files again, as if just dropped (cluster: this node just took the company over). */
  retake(company: string): void {
    for (const [file, entry] of this.entries) {
      if (entry.folder.company !== company || entry.state !== 'taken') continue;
      this.forget(file);
      this.onEvent(file);
    }
  }

  /**
   * A file whose intake (begun at `since`, epoch ms) was dropped as changed: handed out again once
   * stable, unless it was handed out anew since. An event brings a file back only when its identity
   * changed; a rewrite that kept inode, size and mtime brings none.
   */
  again(shown: string, since: number): void {
    for (const [file, entry] of this.entries) {
      if (
        entry.state !== 'taken' ||
        entry.since > since ||
        this.shown(file, entry.folder) !== shown
      )
        continue;
      this.forget(file);
      this.onEvent(file);
    }
  }

  /** Stop watching and end `files()`. Safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doStart(): Promise<void> {
    for (const folder of this.configured) {
      this.folders.set(await makeInboxFolder(folder.dir), folder);
    }
    this.events = new FolderEvents(
      {
        dirs: [...this.folders.keys()],
        usePolling: this.usePolling,
        folderPollMs: this.folderPollMs,
        logger: this.logger,
        repairNames: (dir) => this.names.repair(dir),
        folderOf: (dir) => this.folders.get(dir),
      },
      {
        onEvent: (file) => this.onEvent(file),
        onGone: (file) => this.onGone(file),
        onListing: (dir, names, startedAt) => this.onListing(dir, names, startedAt),
        onStagingName: (file) => this.renames.noteName(file),
      },
    );
    await this.events.start();
  }

  private async doClose(): Promise<void> {
    this.poll.stop();
    this.queue.end();
    try {
      await this.starting;
    } catch {
      // a failed start still leaves a watcher to close
    }
    await this.events?.close();
  }

  private get closed(): boolean {
    return this.closing !== undefined;
  }

  private folderOf(file: string): InboxFolder | undefined {
    return this.folders.get(path.dirname(file));
  }

  /** The path as the configuration names it (the folder may be reached through a symbolic link). */
  private shown(file: string, folder: InboxFolder): string {
    return path.join(folder.dir, path.basename(file));
  }

  /**
   * Events for one path are handled one after the other: `handle` awaits lstat
   * and the rename check, and two interleaved runs (add + change of a new file)
   * could otherwise both decide and hand the file out twice.
   */
  private onEvent(file: string): void {
    const previous = this.inflight.get(file) ?? Promise.resolve();
    const next = previous
      .then(() => this.handle(file))
      .catch((err: unknown) =>
        this.logger.error({ err, file }, 'inbox watcher could not inspect a file'),
      )
      .finally(() => {
        if (this.inflight.get(file) === next) this.inflight.delete(file);
      });
    this.inflight.set(file, next);
  }

  private async handle(file: string): Promise<void> {
    if (this.closed) return;
    const folder = this.folderOf(file);
    if (folder === undefined) return;
    if (NameRepair.suspect(path.basename(file))) await this.names.repair(path.dirname(file));
    if (this.markers.isMarker(file)) {
      await this.onMarker(file, folder);
      return;
    }
    if (isStagingName(file)) {
      await this.renames.seen(file);
      this.logger.debug?.(
        { file: this.shown(file, folder), kind: folder.kind, company: folder.company },
        'staging file seen',
      );
      return;
    }
    const stats = await lstatOrGone(file);
    if (this.closed) return;
    if (stats === undefined) {
      this.forget(file);
      return;
    }
    if (!stats.isFile()) {
      this.skipNonFile(file, stats, folder);
      return;
    }
    this.warned.delete(file);
    const identity = snapshotOf(stats);
    const entry = this.entries.get(file);
    if (entry !== undefined && sameSnapshot(entry.identity, identity)) {
      // an event without new content (or a write that left no trace yet): restart the clock when pending
      if (entry.state === 'pending') entry.since = Date.now();
      return;
    }
    const renamed = await this.renames.renamedIn(file, stats);
    // the poll may have taken the previous content while we awaited
    const current = this.entries.get(file);
    if (current?.state === 'taken') {
      if (sameSnapshot(current.identity, identity)) return;
      this.queue.withdraw(file);
    }
    if (this.closed) return;
    if (renamed && !this.markers.enabled) {
      this.take(file, folder, identity, 'rename');
      return;
    }
    this.entries.set(file, { folder, state: 'pending', identity, since: Date.now() });
    this.poll.ensure();
  }

  /** Polling mode: what chokidar did not report (folder-listing.ts) is handled as if it had. */
  private onListing(dir: string, names: Set<string>, startedAt: number): void {
    for (const name of names) {
      const file = path.join(dir, name);
      if (isHiddenName(file) || this.inflight.has(file)) continue;
      if (isStagingName(file) ? !this.renames.has(file) : !this.entries.has(file))
        this.onEvent(file);
    }
    for (const [file, entry] of this.entries) {
      const listed = path.dirname(file) !== dir || names.has(path.basename(file));
      if (!listed && entry.state === 'taken' && entry.since < startedAt) this.onGone(file);
    }
  }

  private onGone(file: string): void {
    if (isStagingName(file)) {
      this.renames.gone(file);
      return;
    }
    this.forget(file);
    this.warned.delete(file);
    void this.names
      .freed(file)
      ?.catch((err: unknown) =>
        this.logger.error(
          { err, file },
          'inbox watcher could not rename a file name that is not UTF-8',
        ),
      );
  }

  private forget(file: string): void {
    const entry = this.entries.get(file);
    if (entry === undefined) return;
    if (entry.state === 'taken') this.queue.withdraw(file);
    this.entries.delete(file);
  }

  private skipNonFile(file: string, stats: Stats, folder: InboxFolder): void {
    this.forget(file);
    if (this.warned.has(file)) return;
    this.warned.add(file);
    const type = nonFileType(stats);
    this.logger.warn(
      { file: this.shown(file, folder), kind: folder.kind, company: folder.company, type },
      `skipping ${type} in inbox: only regular files are read`,
    );
  }

  /** A done marker: its data files are taken at the next poll; a marker alone is left alone, with one warning. */
  private async onMarker(marker: string, folder: InboxFolder): Promise<void> {
    const files = await this.markers.dataFilesOf(marker);
    for (const file of files) this.onEvent(file);
    if (files.length > 0 || this.warned.has(marker)) return;
    this.warned.add(marker);
    this.logger.warn(
      {
        file: this.shown(marker, folder),
        kind: folder.kind,
        company: folder.company,
        code: 'EDOC_READ_MARKER_ALONE',
      },
      'a done marker has no data file beside it: left alone (its data file is taken once it appears)',
    );
  }

  private take(
    file: string,
    folder: InboxFolder,
    identity: FileSnapshot,
    via: ReadyFile['via'],
    marker?: string,
  ): void {
    this.entries.set(file, { folder, state: 'taken', identity, since: Date.now() });
    this.logger.debug?.(
      { file: this.shown(file, folder), kind: folder.kind, company: folder.company, via },
      'inbox file ready',
    );
    const originalName = this.names.takeOriginal(file);
    this.queue.push(file, {
      path: this.shown(file, folder),
      kind: folder.kind,
      company: folder.company,
      size: identity.size,
      mtimeMs: identity.mtimeMs,
      via,
      ...(marker === undefined ? {} : { marker: this.shown(marker, folder) }),
      ...(originalName === undefined ? {} : { originalName }),
    });
  }
}
