/**
 * What tells the inbox watcher that something happened in its folders: chokidar, and what fills its
 * gaps (chokidar-gaps.ts) — the kernel's staging names in fs-events mode, the watcher's own listing
 * of each folder with polling. It decides nothing: every name goes to the watcher's handlers, which
 * look at the file themselves (inbox-watcher.ts).
 */
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isHiddenName } from './file-names.js';
import { listFoldersEvery, watchStagingNames } from './chokidar-gaps.js';
import { NameRepair } from './non-utf8-names.js';
import { RootFolders } from './root-folders.js';
import type { InboxFolder, WatchLogger } from './watch-types.js';

export interface FolderEventHandlers {
  /** Something happened at `file` (added, changed, a folder added): look at it. */
  onEvent(file: string): void;
  /** `file` (or a folder) is gone. */
  onGone(file: string): void;
  /** Polling: the names a listing of `dir` begun at `startedAt` found. */
  onListing(dir: string, names: Set<string>, startedAt: number): void;
  /** fs events: a staging name (`*.part`, `*.tmp`) the kernel reported, before chokidar could stat it. */
  onStagingName(file: string): void;
}

export interface FolderEventOptions {
  /** The folders' real paths (chokidar does not enter a symlinked root with followSymlinks off). */
  dirs: string[];
  usePolling: boolean;
  /** chokidar's poll interval with `usePolling`, and that of the watcher's own folder listing. */
  folderPollMs: number;
  logger: WatchLogger;
  /** Renames the names of `dir` that are not UTF-8 (non-utf8-names.ts). */
  repairNames(dir: string): Promise<void>;
  /** The company and kind of a folder (by its real path), for the log. */
  folderOf(dir: string): InboxFolder | undefined;
}

/** How often the folders themselves are looked at (root-folders.ts): a stat of each, 1,400 at 200 companies. */
const ROOT_CHECK_MS = 2_000;

export class FolderEvents {
  private chokidar: FSWatcher | undefined;
  /** Stops what fills chokidar's gaps. */
  private stopGapFillers: (() => void) | undefined;
  private roots: RootFolders | undefined;

  constructor(
    private readonly options: FolderEventOptions,
    private readonly on: FolderEventHandlers,
  ) {}

  /** Starts watching; resolves once chokidar's initial scan has reported what is there. */
  async start(): Promise<void> {
    const { dirs, usePolling, folderPollMs, logger } = this.options;
    const roots = new Set(dirs);
    this.stopGapFillers = usePolling
      ? listFoldersEvery({
          dirs,
          intervalMs: folderPollMs,
          onListing: (dir, names, startedAt) => this.on.onListing(dir, names, startedAt),
          onError: (err, dir) => logger.error({ err, dir }, 'inbox folder could not be listed'),
        })
      : watchStagingNames(
          dirs,
          (file) => this.on.onStagingName(file),
          (err, dir) => logger.debug?.({ err, dir }, 'staging-name watch unavailable or ended'),
          (file) => {
            if (NameRepair.suspect(path.basename(file))) this.on.onEvent(file);
          },
        );
    // names that are not UTF-8 are renamed before chokidar's first scan, which could not stat them
    for (const dir of dirs) await this.options.repairNames(dir);
    const watcher = watch(dirs, {
      depth: 0,
      ignoreInitial: false,
      followSymlinks: false,
      usePolling,
      interval: folderPollMs,
      binaryInterval: folderPollMs,
      ignored: (file: string) => !roots.has(file) && isHiddenName(file),
    });
    this.chokidar = watcher;
    watcher.on('add', (file) => this.on.onEvent(file));
    watcher.on('change', (file) => this.on.onEvent(file));
    watcher.on('addDir', (file) => {
      if (!roots.has(file)) this.on.onEvent(file);
    });
    watcher.on('unlink', (file) => this.on.onGone(file));
    watcher.on('unlinkDir', (file) => this.on.onGone(file));
    watcher.on('error', (err) => logger.error({ err }, 'inbox watcher error'));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    this.roots = new RootFolders({
      dirs,
      intervalMs: Math.max(ROOT_CHECK_MS, folderPollMs),
      slowFileSystem: usePolling,
      rewatch: (dir, made) => {
        const { company, kind } = this.options.folderOf(dir) ?? {};
        logger.warn(
          { dir, company, kind },
          made
            ? 'an inbox folder was removed while watched: made again and watched anew (what was in it is no longer in the inbox)'
            : 'an inbox folder was removed while watched and made again: watched anew',
        );
        // chokidar lost the folder with its inode: watched again, it reports the files there as added
        watcher.unwatch(dir);
        watcher.add(dir);
      },
      unreachable: (dir, err) => {
        const { company, kind } = this.options.folderOf(dir) ?? {};
        logger.error(
          { err, dir, company, kind },
          'an inbox folder cannot be looked at or made again: files for it wait until it can',
        );
      },
    });
    await this.roots.start();
  }

  /** Stops chokidar and the gap fillers. */
  async close(): Promise<void> {
    this.roots?.stop();
    await this.chokidar?.close();
    this.stopGapFillers?.();
  }
}
