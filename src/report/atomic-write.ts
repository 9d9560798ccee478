import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import { writeWhole } from '../storage/write-whole.js';

/** Makes a rename or unlink in `dir` durable. Some platforms cannot open a directory: then it is best effort. */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw err;
  } finally {
    await fh?.close();
  }
}

function tempPathFor(target: string): string {
  // hidden and *.tmp: no watcher or ERP pickup takes it for a finished file
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
}

function writeError(target: string, err: unknown): EdocError {
  return new EdocError(
    'EDOC_REPORT_WRITE',
    `Could not write ${target}: ${(err as Error).message}`,
    { file: target, errno: (err as NodeJS.ErrnoException).code },
    { cause: err },
  );
}

const FLUSH_BYTES = 64 * 1024;

/**
 * Streams content into a temp file beside `target`; `commit()` fsyncs it, renames it over the target
 * and fsyncs the folder, so a reader sees the old file or the whole new one, never a torn one.
 */
export class AtomicWriter {
  readonly tempPath: string;
  private fh: fsp.FileHandle | undefined;
  private chunks: Buffer[] = [];
  private pending = 0;
  private done = false;

  private constructor(readonly target: string) {
    this.tempPath = tempPathFor(target);
  }

  static async create(target: string): Promise<AtomicWriter> {
    const w = new AtomicWriter(target);
    try {
      // outbox files are customer data: owner read-write, group read (the ERP's account), never the world
      w.fh = await fsp.open(w.tempPath, 'wx', 0o640);
    } catch (err) {
      throw writeError(target, err);
    }
    return w;
  }

  /** Buffers the chunk; awaits the disk only once 64 KiB are pending. */
  async write(chunk: string | Buffer): Promise<void> {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.chunks.push(buf);
    this.pending += buf.length;
    if (this.pending >= FLUSH_BYTES) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending === 0 || !this.fh) return;
    const data = Buffer.concat(this.chunks, this.pending);
    this.chunks = [];
    this.pending = 0;
    try {
      await writeWhole(this.fh, data);
    } catch (err) {
      throw writeError(this.target, err);
    }
  }

  async commit(): Promise<void> {
    if (this.done) throw new Error(`AtomicWriter for ${this.target} already finished`);
    this.done = true;
    try {
      await this.flush();
      await this.fh?.sync();
      await this.fh?.close();
      this.fh = undefined;
      await fsp.rename(this.tempPath, this.target);
      await fsyncDir(path.dirname(this.target));
    } catch (err) {
      await this.cleanup();
      throw err instanceof EdocError ? err : writeError(this.target, err);
    }
  }

  /** Drops the temp file; the target is untouched. Safe to call after commit. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.cleanup();
  }

  private async cleanup(): Promise<void> {
    try {
      await this.fh?.close();
    } catch {
      /* already failing; the unlink below matters more */
    }
    this.fh = undefined;
    await fsp.rm(this.tempPath, { force: true });
  }
}

/** Writes `content` to `target` atomically. */
export async function writeFileAtomic(target: string, content: string | Buffer): Promise<void> {
  const w = await AtomicWriter.create(target);
  try {
    await w.write(content);
  } catch (err) {
    await w.abort();
    throw err;
  }
  await w.commit();
}

/** Removes an outbox file and makes the removal durable; absent is fine. */
export async function removeDurably(target: string): Promise<boolean> {
  try {
    await fsp.unlink(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw writeError(target, err);
  }
  await fsyncDir(path.dirname(target));
  return true;
}
