/**
 * A full disk is a state, not a crash. Whoever fails to write the ledger or the outbox that way
 * reports it here: the first report of an episode logs one line and pauses everything that would
 * write (intake, senders, reports ask `paused`); a probe with backoff (1 s … 30 s) tries a real
 * ledger commit and a little headroom in each folder, then runs the `beforeResume` steps (verdicts
 * held in memory are committed first) and only then lifts the pause, with one line saying so.
 */
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { isStorageFull, storageFullCode } from './storage-full.js';
import { writeWhole } from './write-whole.js';

export interface StorageWatchOptions {
  /** A real write transaction on the ledger (`LedgerPort.probeWrite`). */
  probe(): void | Promise<void>;
  logger: Pick<Logger, 'info' | 'error' | 'warn'>;
  /** Folders (state, outbox) that must take `headroomBytes` before work resumes; a missing one is skipped. */
  dirs?: readonly string[];
  /** @defaultValue 65536 */
  headroomBytes?: number;
  /** First probe delay; doubles up to `maxDelayMs`. @defaultValue 1000 */
  minDelayMs?: number;
  /** @defaultValue 30000 */
  maxDelayMs?: number;
}

type Step = () => void | Promise<void>;

export class StorageWatch {
  private since: number | undefined;
  private delayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly before = new Set<Step>();
  private readonly after = new Set<Step>();

  constructor(private readonly options: StorageWatchOptions) {
    this.delayMs = options.minDelayMs ?? 1_000;
  }

  /** True from a reported failure until a probe succeeded. */
  get paused(): boolean {
    return this.since !== undefined;
  }

  /**
   * A write failed. A storage failure (full disk, I/O error) pauses; with `always`, so does any other
   * (a verdict that could not be committed is held whatever the reason). Returns whether it paused.
   */
  report(err: unknown, where: string, always = false): boolean {
    const storage = isStorageFull(err);
    if (!storage && !always) return false;
    if (this.since !== undefined) return true;
    this.since = Date.now();
    this.delayMs = this.options.minDelayMs ?? 1_000;
    this.options.logger.error(
      {
        err,
        code: storage ? 'EDOC_STORAGE_FULL' : 'EDOC_LEDGER_WRITE',
        errno: storageFullCode(err),
        where,
      },
      storage
        ? 'the disk is full: intake and submissions pause, nothing is lost; they resume by themselves when space returns'
        : 'the ledger could not be written: intake and submissions pause and resume once it can be written again',
    );
    this.schedule();
    return true;
  }

  /** Runs before the pause lifts; throwing keeps the pause (and is retried at the next probe). */
  beforeResume(step: Step): () => void {
    this.before.add(step);
    return () => this.before.delete(step);
  }

  /** Runs once the pause lifted. */
  onResume(step: Step): () => void {
    this.after.add(step);
    return () => this.after.delete(step);
  }

  /** Stops probing. Idempotent. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.probe(), this.delayMs);
    this.timer.unref?.();
    this.delayMs = Math.min(this.delayMs * 2, this.options.maxDelayMs ?? 30_000);
  }

  private async probe(): Promise<void> {
    try {
      for (const dir of this.options.dirs ?? [])
        await headroom(dir, this.options.headroomBytes ?? 65_536);
      await this.options.probe();
      for (const step of this.before) await step();
    } catch {
      this.schedule();
      return;
    }
    if (this.closed || this.since === undefined) return;
    const pausedMs = Date.now() - this.since;
    this.since = undefined;
    this.options.logger.info(
      { code: 'EDOC_STORAGE_FULL', pausedMs },
      'storage writable again: intake and submissions resume',
    );
    for (const step of this.after) {
      try {
        await step();
      } catch (err) {
        // a step that fails on the disk again starts a new pause; any other failure is only logged
        if (!this.report(err, 'resume'))
          this.options.logger.error({ err }, 'error while resuming after a full disk');
      }
    }
  }
}

/** Writes and syncs `bytes` in a hidden temp file in `dir`, then removes it: the folder can take that much. */
async function headroom(dir: string, bytes: number): Promise<void> {
  const file = path.join(
    dir,
    `.edoc-bridge-probe.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(file, 'wx', 0o600);
    // a short write (part of the buffer, no error) is a disk without that much room: writeWhole says ENOSPC
    await writeWhole(fh, Buffer.alloc(bytes));
    await fh.sync();
  } catch (err) {
    // Only space counts here: a folder that is missing or not writable for another reason (permissions,
    // read-only) is the report writer's to log, and must not hold the whole daemon paused.
    if (!isStorageFull(err)) return;
    throw err;
  } finally {
    await fh?.close().catch(() => undefined);
    await fsp.rm(file, { force: true });
  }
}
