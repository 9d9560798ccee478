/**
 * The inbox folders themselves, looked at every few seconds. chokidar reports nothing when a folder it
 * watches is removed or moved away, and does not see into a folder made again at its path: files
 * dropped there would wait for a restart with no line in the log. A folder found gone is made again
 * (as at start), one found made anew (another inode) is watched again, with one warn line each time.
 */
import { statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { makeFolder } from '../storage/make-folder.js';

export interface RootFoldersOptions {
  /** The folders' real paths, as chokidar watches them. */
  dirs: readonly string[];
  intervalMs: number;
  /**
   * Look with `fs.stat` on the thread pool instead of `statSync` (a network share, which may hang).
   * `statSync` costs ~2 ms of one thread for 1,400 local folders (200 companies), `fs.stat` ~65 ms.
   */
  slowFileSystem: boolean;
  /** Watch `dir` again (it was made anew); `made`: the daemon made it. */
  rewatch(dir: string, made: boolean): void;
  /** `dir` cannot be looked at (its mode changed) or made again (a file in its place). */
  unreachable(dir: string, err: unknown): void;
}

/** A folder's identity (device, inode, birth time), null when it is gone, or what keeps it from being looked at. */
type Found = string | null | { err: unknown };

function foundOf(stats: Stats): Found {
  // a folder removed and made again often gets the same inode back: its birth time tells them apart
  return stats.isDirectory() ? `${stats.dev}:${stats.ino}:${stats.birthtimeMs}` : null;
}

function notThere(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export class RootFolders {
  private readonly known = new Map<string, Found>();
  /** Folders that could not be looked at or made again: told once until they are back. */
  private readonly told = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: RootFoldersOptions) {}

  private async identity(dir: string): Promise<Found> {
    try {
      return foundOf(this.options.slowFileSystem ? await stat(dir) : statSync(dir));
    } catch (err) {
      return notThere(err) ? null : { err };
    }
  }

  /** Notes each folder's identity as it is now, then looks again every `intervalMs`. */
  async start(): Promise<void> {
    for (const dir of this.options.dirs) this.known.set(dir, await this.identity(dir));
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.check().finally(() => this.schedule());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    for (const dir of this.options.dirs) {
      if (this.stopped) return;
      let now = await this.identity(dir);
      let made = false;
      if (now === null) {
        try {
          await makeFolder(dir);
          made = true;
          now = await this.identity(dir);
        } catch (err) {
          now = { err };
        }
      }
      if (now === null) continue; // removed again as soon as made: the next look makes it
      if (typeof now !== 'string') {
        if (!this.told.has(dir)) this.options.unreachable(dir, now.err);
        this.told.add(dir);
        continue;
      }
      this.told.delete(dir);
      // a folder unreachable for a while (its mode changed, then back) is the same folder: nothing to do
      if (now === this.known.get(dir) || this.stopped) continue;
      this.known.set(dir, now);
      this.options.rewatch(dir, made);
    }
  }
}
