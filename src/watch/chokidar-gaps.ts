/**
 * What chokidar does not report, and how the watcher learns it anyway.
 *
 * - With fs events, chokidar reports a file once it could stat it: a staging
 *   file renamed right after it was created gives no event, and its file would
 *   wait `stableMs`. A raw `fs.watch` of each folder notes the kernel's staging
 *   names (`watchStagingNames`).
 * - With `usePolling`, chokidar watches a folder with `fs.watchFile`: it reads
 *   the folder, then starts the stat poll, whose first stat is the baseline. A
 *   file created between the two is in neither and is not reported until the
 *   folder changes again. chokidar also re-reads a folder only when its mtime
 *   grew, so on a share whose mtimes are coarse (whole seconds, or a server
 *   clock behind ours) a file created in the same tick as the previous poll is
 *   missed the same way. Polling exists for exactly those shares, so the
 *   watcher also lists each folder itself at the poll interval
 *   (`listFoldersEvery`) and treats what chokidar did not report as if it had.
 *
 * Each returns a function that stops it.
 */
import path from 'node:path';
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { isStagingName } from './file-names.js';

type Report = (err: unknown, dir: string) => void;

/**
 * Calls `onName` with the full path of every staging name the kernel reports in these folders, and
 * `onOther` with every other name: chokidar drops a name that is not UTF-8 (it cannot stat the name
 * Node decoded), so that is the one place the watcher learns of such a file in fs-events mode.
 */
export function watchStagingNames(
  dirs: string[],
  onName: (file: string) => void,
  onError: Report,
  onOther?: (file: string) => void,
): () => void {
  const watchers: FSWatcher[] = [];
  for (const dir of dirs) {
    try {
      const w = fsWatch(dir, { persistent: false }, (_event, name) => {
        if (typeof name !== 'string') return;
        if (isStagingName(name)) onName(path.join(dir, name));
        else onOther?.(path.join(dir, name));
      });
      w.on('error', (err) => onError(err, dir));
      watchers.push(w);
    } catch (err) {
      // Only a speed-up: without it, such a file is taken by the stability rule.
      onError(err, dir);
    }
  }
  return () => {
    for (const w of watchers.splice(0)) w.close();
  };
}

export interface FolderListingOptions {
  dirs: string[];
  intervalMs: number;
  /** Called with every name in a folder, and when its listing started. */
  onListing(dir: string, names: Set<string>, startedAt: number): void;
  onError: Report;
}

/** Lists every folder each `intervalMs`, one listing at a time. */
export function listFoldersEvery(options: FolderListingOptions): () => void {
  let busy = false;
  let stopped = false;
  const listAll = async (): Promise<void> => {
    for (const dir of options.dirs) {
      if (stopped) return;
      const startedAt = Date.now();
      try {
        const names = new Set(await readdir(dir));
        if (!stopped) options.onListing(dir, names, startedAt);
      } catch (err) {
        options.onError(err, dir);
      }
    }
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void listAll().finally(() => {
      busy = false;
    });
  }, options.intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
