/**
 * A real small disk for full-disk tests: a tmpfs mounted on a folder (needs root or CAP_SYS_ADMIN),
 * filled to the last byte by a filler file and freed again by deleting it.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Whether this process can mount a tmpfs; the reason when it cannot. */
export function mountSupport(): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== 'linux')
    return { ok: false, reason: `tmpfs mounts need Linux (this is ${process.platform})` };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return { ok: true };
  } catch (err) {
    const uid = process.getuid?.();
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return {
      ok: false,
      reason: `cannot mount a tmpfs (uid ${uid ?? '?'}; needs root or CAP_SYS_ADMIN): ${stderr || (err as Error).message}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export class SmallDisk {
  private readonly filler: string;
  private mounted = false;

  private constructor(readonly dir: string) {
    this.filler = path.join(dir, 'filler.bin');
  }

  /** Mounts a tmpfs of `sizeMb` MiB on `dir` (created). */
  static mount(dir: string, sizeMb: number): SmallDisk {
    mkdirSync(dir, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
    const disk = new SmallDisk(dir);
    disk.mounted = true;
    return disk;
  }

  /** Fills the disk to the last byte, then gives `leaveBytes` back. */
  fill(leaveBytes = 0): void {
    const fd = openSync(this.filler, 'a');
    try {
      for (const chunk of [1 << 20, 1 << 16, 4096]) {
        const buf = Buffer.alloc(chunk, 1);
        for (;;) {
          try {
            writeSync(fd, buf);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
            throw err;
          }
        }
      }
      if (leaveBytes > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leaveBytes));
    } finally {
      closeSync(fd);
    }
  }

  /** Deletes the filler: the space is back. */
  free(): void {
    rmSync(this.filler, { force: true });
  }

  /** Unmounts (lazily when busy). Safe to call twice. */
  unmount(): void {
    if (!this.mounted) return;
    this.mounted = false;
    try {
      execFileSync('umount', [this.dir], { stdio: 'pipe' });
    } catch {
      execFileSync('umount', ['-l', this.dir], { stdio: 'pipe' });
    }
  }
}
