import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EdocError } from '../errors.js';

export const LOCK_FILE = 'edoc-bridge.lock';

export interface LockInfo {
  pid: number;
  startedAt: string;
  /** Kernel start time of the process (Linux), so a reused pid is not mistaken for the holder. */
  procStart?: string;
  host?: string;
}

export interface HeldLock {
  path: string;
  info: LockInfo;
  /** Set when a stale lock of a dead process was taken over. */
  tookOverFrom?: LockInfo;
}

/** State folders locked by this process: a second open in-process is as wrong as a second process. */
const heldHere = new Set<string>();

function procStartOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(info: LockInfo): boolean {
  // our own pid in a lock we do not hold: a previous container or boot that reused the number
  if (info.pid === process.pid) return false;
  try {
    process.kill(info.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (info.procStart !== undefined) {
    const now = procStartOf(info.pid);
    if (now !== undefined && now !== info.procStart) return false;
  }
  return true;
}

function readLock(file: string): LockInfo | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockInfo>;
    return typeof parsed.pid === 'number' && parsed.pid > 0 ? (parsed as LockInfo) : undefined;
  } catch {
    return undefined; // empty or torn: the writer died between create and write
  }
}

function lockedError(dir: string, info: LockInfo): EdocError {
  return new EdocError(
    'EDOC_LEDGER_LOCKED',
    `The state folder ${dir} is in use by another edoc-bridge process (pid ${info.pid}, started ${info.startedAt}).`,
    { stateDir: dir, pid: info.pid, startedAt: info.startedAt },
  );
}

/** Takes `<stateDir>/edoc-bridge.lock`, or throws EDOC_LEDGER_LOCKED naming the live holder. */
export function acquireLock(stateDir: string): HeldLock {
  const dir = path.resolve(stateDir);
  const file = path.join(dir, LOCK_FILE);
  const info: LockInfo = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    host: os.hostname(),
  };
  const procStart = procStartOf(process.pid);
  if (procStart !== undefined) info.procStart = procStart;
  if (heldHere.has(dir)) throw lockedError(dir, info);

  let tookOverFrom: LockInfo | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(file);
      if (holder && isAlive(holder)) throw lockedError(dir, holder);
      // Stale. Move it aside rather than unlink: of two processes racing for the same stale lock only
      // one rename succeeds; the loser sees ENOENT and retries the exclusive create.
      const aside = `${file}.stale-${process.pid}`;
      try {
        fs.renameSync(file, aside);
      } catch (renameErr) {
        if ((renameErr as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw renameErr;
      }
      const moved = readLock(aside);
      if (
        moved &&
        holder &&
        (moved.pid !== holder.pid || moved.startedAt !== holder.startedAt) &&
        isAlive(moved)
      ) {
        // we moved a fresh lock another process just took: put it back and give way
        try {
          fs.linkSync(aside, file);
        } catch {
          /* a third process won; it holds the folder */
        }
        fs.rmSync(aside, { force: true });
        throw lockedError(dir, moved);
      }
      fs.rmSync(aside, { force: true });
      tookOverFrom = holder ?? { pid: 0, startedAt: 'unknown' };
      continue;
    }
    try {
      fs.writeSync(fd, JSON.stringify(info));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    heldHere.add(dir);
    return tookOverFrom ? { path: file, info, tookOverFrom } : { path: file, info };
  }
  const holder = readLock(file);
  throw lockedError(dir, holder ?? { pid: 0, startedAt: 'unknown' });
}

/** Removes the lock if it is still ours. Safe to call twice. */
export function releaseLock(lock: HeldLock): void {
  const dir = path.dirname(lock.path);
  if (!heldHere.delete(dir)) return;
  const current = readLock(lock.path);
  if (current && current.pid === lock.info.pid && current.startedAt === lock.info.startedAt) {
    fs.rmSync(lock.path, { force: true });
  }
}

/** The live process holding `<stateDir>/edoc-bridge.lock`, if any (for `status` and `retry`). */
export function lockHolder(stateDir: string): LockInfo | undefined {
  const info = readLock(path.join(path.resolve(stateDir), LOCK_FILE));
  return info !== undefined && isAlive(info) ? info : undefined;
}
