/**
 * The archive watch: archiving is a rename (same inode), so a writer that still holds the original open
 * and writes on after the file was sent writes into the archived copy, where nothing would read it. For
 * `watch.archiveWatchMs` after the move the daemon looks at each archived copy (stat only; a SHA-256
 * only when size or mtime moved). Changed content → the file gets EDOC_READ_CHANGED_AFTER_SEND (its
 * report is rewritten), one error line, and the copy goes back to the inbox folder it came from, where
 * its whole content is taken as a new file (documents accepted already are reported duplicate there).
 */
import type { CompanyView } from '../company/company-view.js';
import { ledgerNow } from '../policy/ledger-clock.js';
import type { Stats } from 'node:fs';
import { lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { LedgerPort } from '../ledger/port.js';
import { CHANGED_AFTER_SEND } from '../ledger/files.js';
import type { FileError, FileRow } from '../ledger/types.js';
import { setFilesOfRow } from '../map/parts.js';
import type { AppLogger } from '../log/logger.js';
import { candidate, placeExclusive, sha256Of } from '../report/archive.js';
import { fsyncDir } from '../report/atomic-write.js';

const WRITTEN_ON = 'EDOC_READ_CHANGED';

export interface ArchiveWatchOptions {
  ledger: LedgerPort;
  logger: AppLogger;
  /** How long an archived original is watched; 0 turns the watch off. Read at each add (it changes on SIGHUP). */
  watchMs(): number;
  /** Time between two looks at the watched copies. @defaultValue 1000 */
  intervalMs?: number;
  /** The file's report is due again: it now carries EDOC_READ_CHANGED_AFTER_SEND. */
  onFlagged(fileId: number): void;
  /** The clock (tests). @defaultValue Date.now */
  now?(): number;
  /** Which companies this process runs: only a company's owner watches, flags and moves its copies. */
  companies: CompanyView;
}

/** A few fields per file, nothing of its content. */
interface Entry {
  archived: string;
  /** The size and hash the ledger recorded when the file was read. */
  size: number;
  sha256: string;
  /** The copy's mtime right after the move (or when re-armed at start). */
  mtimeMs: number;
  until: number;
}

export class ArchiveWatch {
  private readonly entries = new Map<number, Entry>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: ArchiveWatchOptions) {}

  private now(): number {
    return this.options.now?.() ?? ledgerNow();
  }

  /** Re-arms the watch for files archived less than `watchMs` ago (a restart), then looks every interval. */
  async start(): Promise<void> {
    const ms = this.options.watchMs();
    if (ms > 0) {
      for (const file of await this.options.ledger.recentlyArchived(this.now() - ms)) {
        if (!this.options.companies.owns(file.company)) continue;
        await this.watch(file, file.archivedPath ?? '', (file.finishedAt ?? 0) + ms);
      }
    }
    this.timer = setInterval(() => void this.check(), this.options.intervalMs ?? 1_000);
    this.timer.unref();
  }

  /** The file's original was just moved to `archivedPath`. */
  async add(fileId: number, archivedPath: string): Promise<void> {
    const ms = this.options.watchMs();
    const file = await this.options.ledger.getFile(fileId);
    if (ms <= 0 || this.closed || file === undefined) return;
    await this.watch(file, archivedPath, this.now() + ms);
  }

  /** Files watched now (tests, status). */
  get size(): number {
    return this.entries.size;
  }

  private async watch(file: FileRow, archived: string, until: number): Promise<void> {
    // an export in two files: its hash is over both parts, not the header's copy alone (not watched)
    if (setFilesOfRow(file) !== undefined) return;
    // a duplicate drop sent nothing; a file already flagged is handled. A file that failed at its read is
    // watched too: taken at a writer's pause, its rest is written into this copy, and nothing else reads it
    if (
      (file.state !== 'done' && file.state !== 'failed-read') ||
      file.duplicateOf !== null ||
      archived === '' ||
      file.error?.code === CHANGED_AFTER_SEND ||
      file.error?.code === WRITTEN_ON
    )
      return;
    const st = await lstat(archived).catch(() => undefined);
    if (st === undefined || !st.isFile()) return;
    // the size recorded when the file was read, not the copy's: a write between the move and this stat still shows
    this.entries.set(file.id, {
      archived,
      size: file.size,
      sha256: file.sha256,
      mtimeMs: st.mtimeMs,
      until,
    });
  }

  /** One look at every watched copy (the timer's; tests call it directly). Never two at once. */
  check(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    for (const [fileId, e] of [...this.entries]) {
      if (this.closed) return;
      if (this.now() >= e.until) {
        this.entries.delete(fileId);
        continue;
      }
      try {
        const st = await lstat(e.archived).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return undefined;
          throw err;
        });
        // moved away (by the operator, or resend's copy kept it): nothing of ours to watch
        if (st === undefined || !st.isFile()) {
          this.entries.delete(fileId);
          continue;
        }
        if (st.size === e.size && st.mtimeMs === e.mtimeMs) continue;
        // touched, or rewritten with the same bytes: the same content
        if (st.size === e.size && (await sha256Of(e.archived)) === e.sha256) {
          e.mtimeMs = st.mtimeMs;
          continue;
        }
        this.entries.delete(fileId);
        await this.changed(fileId, e.archived, st);
      } catch (err) {
        this.entries.delete(fileId);
        this.options.logger.warn(
          { err, file: e.archived },
          'could not look at an archived original: it is no longer watched',
        );
      }
    }
  }

  private async changed(fileId: number, archived: string, st: Stats): Promise<void> {
    const { ledger, logger } = this.options;
    const file = await ledger.getFile(fileId);
    if (file === undefined) return;
    const failedRead = file.state === 'failed-read';
    const where = {
      code: failedRead ? WRITTEN_ON : CHANGED_AFTER_SEND,
      file: file.name,
      kind: file.kind,
      company: file.company,
      archived,
    };
    // flagged before the copy is back in the inbox: its new content then never takes this file's report names
    if (failedRead)
      await ledger.flagWrittenOnAfterRead(
        fileId,
        (earlier) => writtenOn(file.name, earlier),
        this.now(),
      );
    else
      await ledger.flagChangedAfterSend(
        fileId,
        {
          code: CHANGED_AFTER_SEND,
          message:
            `${file.name} changed after it was sent ` +
            'and archived (written on into the archived copy): its documents were sent from the earlier content. The changed ' +
            'copy is put back in the inbox and taken as a new file (documents accepted already are reported duplicate there).',
        },
        this.now(),
      );
    this.options.onFlagged(fileId);
    const what = failedRead
      ? 'FILE WRITTEN ON AFTER IT WAS READ AND REFUSED: it was taken unfinished (its error came from its unfinished end) and nothing of it was sent'
      : 'FILE CHANGED AFTER IT WAS SENT AND ARCHIVED';
    let back: string | undefined;
    try {
      back = await putBack(archived, file.path, st);
    } catch (err) {
      logger.error(
        { ...where, err },
        `${what}: the changed copy could not be put back ` +
          'in the inbox; it stays in the archive: move it to the inbox folder to have it taken as a new file',
      );
      return;
    }
    logger.error(
      { ...where, inbox: back },
      failedRead
        ? `${what}; the complete copy is put back in the inbox and taken as a new file`
        : `${what}: documents were sent from its ` +
            'earlier content; the changed copy is put back in the inbox and taken as a new file',
    );
  }

  /** Stops looking. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    this.entries.clear();
  }
}

/** A file that failed at its read was taken at a writer's pause: what its report says instead. */
function writtenOn(name: string, earlier: FileError): FileError {
  return {
    code: WRITTEN_ON,
    message:
      `${name} was written on after it was read: it was taken unfinished (the writer paused), so the error ` +
      `its unfinished content gave (${earlier.code}: ${earlier.message}) says nothing about the export, and ` +
      'nothing of it was sent. Its complete copy is put back in the inbox and taken as a new file: see that ' +
      "file's report. To have an export never taken unfinished, write it as NAME.part and rename it, or use " +
      'watch.doneMarker.',
  };
}

/** Moves `archived` to `original`'s folder under its name, or `NAME (2).ext`…; never overwrites. */
async function putBack(archived: string, original: string, st: Stats): Promise<string> {
  const dir = path.dirname(original);
  for (let n = 1; n < 10_000; n++) {
    const dest = candidate(dir, path.basename(original), n);
    if (!(await placeExclusive(archived, dest, st))) continue;
    await fsyncDir(dir);
    const still = await lstat(archived).catch(() => undefined);
    if (still !== undefined && still.ino === st.ino && still.dev === st.dev) {
      await unlink(archived);
      await fsyncDir(path.dirname(archived));
    }
    return dest;
  }
  throw new Error(`no free name for ${path.basename(original)} in ${dir}`);
}
