/**
 * Group commit for the daemon's SQLite ledger: the connection runs `synchronous = NORMAL` in WAL mode (a
 * COMMIT appends its frames to `<ledger>-wal` and returns without an fsync), and this makes each commit
 * durable before anyone may act on it: an fdatasync of the WAL file on libuv's thread pool, so the main
 * thread goes on reading answers while the disk works. A commit's caller is resolved only once a sync
 * that started after the commit's frames were written has returned; commits made while a sync runs share
 * the next one. The argument (checkpoints, a reset WAL, what NORMAL does) is in docs/architecture.md,
 * "The ledger's commits and fsync".
 */
import type { FileHandle } from 'node:fs/promises';
import fsp from 'node:fs/promises';

export class WalSync {
  /** Commits made on the connection (numbered from 1). */
  private made = 0;
  /** Every commit up to this one is on disk. */
  private synced = 0;
  private running: Promise<void> | undefined;
  private handle: FileHandle | undefined;
  private closed = false;

  /** `walPath`: `<database>-wal`, opened (never created) at the first sync. */
  constructor(private readonly walPath: string) {}

  /** A commit that wrote was just made on the connection: its number. */
  commit(): number {
    return ++this.made;
  }

  /** The last commit made: what a read on the connection (or a view opened now) can see. */
  get latest(): number {
    return this.made;
  }

  /** Whether commit `seq` and every earlier one are on disk already (no wait needed). */
  isDurable(seq: number): boolean {
    return this.synced >= seq;
  }

  /**
   * Resolves once commit `seq` and every earlier one are on disk. Rejects with the sync's error when one
   * fails (an I/O error of the disk): the commit is in the database but not known to be durable, and the
   * caller must not act on it (the sender then treats its mark as unsaved and takes it back).
   */
  async durable(seq: number): Promise<void> {
    while (this.synced < seq) {
      // one sync at a time: a commit made while one runs waits for the next, which covers every commit made by then
      this.running ??= this.syncOnce();
      await this.running;
    }
  }

  /** After the last commit's sync (the connection is about to close). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.running?.catch(() => undefined);
    } finally {
      const handle = this.handle;
      this.handle = undefined;
      await handle?.close();
    }
  }

  private async syncOnce(): Promise<void> {
    // every frame of the commits made so far was written (synchronously, by SQLite) before this line:
    // a sync that starts now covers them all
    const upTo = this.made;
    try {
      if (this.closed) throw new Error('the ledger connection is closed');
      // 'r+': a descriptor that may sync on every platform; never creates the file (SQLite made it at the first commit)
      this.handle ??= await fsp.open(this.walPath, 'r+');
      await this.handle.datasync();
      if (upTo > this.synced) this.synced = upTo;
    } finally {
      this.running = undefined;
    }
  }
}
