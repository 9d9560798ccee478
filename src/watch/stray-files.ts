/**
 * Files an operator dropped in the inbox but in no inbox folder: in `paths.inbox` itself, in a company's
 * folder beside its kinds (`inbox/<company>/`), or in a folder of no kind (`inbox/factura/`, a kind
 * switched off). Nothing watches those places, so such a file would wait there for good with nothing
 * said. One look at start and every minute; one warning per file (EDOC_READ_NOT_IN_INBOX) naming it and
 * the folders that are watched. Hidden and staging names are left alone, as in the inbox folders.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { AppLogger } from '../log/logger.js';
import { isHiddenName, isStagingName } from './file-names.js';

export interface StrayFilesOptions {
  /** `paths.inbox`. */
  root: string;
  /** The watched inbox folders. */
  folders: readonly string[];
  logger: AppLogger;
  /** Time between two looks. @defaultValue 60000 */
  everyMs?: number;
}

export class StrayFiles {
  private readonly warned = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly root: string;
  private readonly watched: Set<string>;
  /** Folders between the root and the watched ones (`inbox/<company>/`), and the root. */
  private readonly above = new Set<string>();

  constructor(private readonly options: StrayFilesOptions) {
    this.root = path.resolve(options.root);
    this.watched = new Set(options.folders.map((f) => path.resolve(f)));
    for (const f of this.watched)
      for (let d = path.dirname(f); d.startsWith(this.root); d = path.dirname(d)) {
        this.above.add(d);
        if (d === this.root) break;
      }
  }

  start(): void {
    void this.check();
    this.timer = setInterval(() => void this.check(), this.options.everyMs ?? 60_000);
    this.timer.unref();
  }

  /** One look (the timer's; tests call it). Never two at once. */
  check(): Promise<void> {
    this.running ??= this.look()
      .catch((err: unknown) =>
        this.options.logger.warn({ err }, 'could not look for files outside the inbox folders'),
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async look(): Promise<void> {
    const seen = new Set<string>();
    for (const dir of this.above) {
      for (const entry of await list(dir)) {
        const full = path.join(dir, entry.name);
        if (entry.isFile()) seen.add(full);
        else if (entry.isDirectory() && !this.watched.has(full) && !this.above.has(full))
          for (const inner of await list(full))
            if (inner.isFile()) seen.add(path.join(full, inner.name));
      }
    }
    for (const file of seen) {
      if (isHiddenName(file) || isStagingName(file) || this.warned.has(file)) continue;
      this.warned.add(file);
      const where = path.dirname(file) === this.root ? 'the inbox itself' : path.dirname(file);
      this.options.logger.warn(
        { code: 'EDOC_READ_NOT_IN_INBOX', file, folders: [...this.watched] },
        `a file lies in ${where}, which is no inbox folder: it is not taken. ` +
          "Move it into its kind's folder (inbox/<kind>/, with several companies inbox/<company>/<kind>/)",
      );
    }
    // a file moved away and dropped there again is named again
    for (const file of this.warned) if (!seen.has(file)) this.warned.delete(file);
  }

  close(): void {
    clearInterval(this.timer);
  }
}

async function list(dir: string) {
  return readdir(dir, { withFileTypes: true }).catch(() => []);
}
