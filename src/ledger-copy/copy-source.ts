/**
 * The SQLite side of `edoc-bridge ledger copy`: the ledger file opened read-only (the copy never writes
 * its source: it stays the installation's fallback until the cluster has taken over), held in one read
 * transaction so every table is read at the same instant, under the state folder's lock.
 *
 * Why the lock: a daemon that keeps running after the copy goes on changing documents (verdicts, new
 * files) that the PostgreSQL ledger never sees, and then both would send. So the copy refuses while a
 * live process holds the folder, and holds the lock itself while it reads, so no daemon starts on the
 * folder meanwhile. `--force-snapshot` copies a running daemon's ledger anyway — one read transaction
 * is a consistent instant of it — for a rehearsal of the move while production runs.
 *
 * Why no migration here: a ledger of another schema version is refused with the way forward (start
 * this version's daemon once, or `ledger migrate` without ledger.url), rather than upgraded in place by
 * a command that promises to read only.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EdocError, isEdocError } from '../errors.js';
import { acquireLock, lockHolder, releaseLock } from '../ledger/lock.js';
import type { HeldLock, LockInfo } from '../ledger/lock.js';
import { SCHEMA_VERSION } from '../ledger/migrations.js';

/** The SQLite ledger's file name in the state folder (ledger/ledger.ts LEDGER_FILE). */
const SQLITE_FILE = 'ledger.sqlite';
/** Errors of a lock file that cannot be written (a read-only copy of a state folder): then only a live holder stops the copy. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);
const SQLITE_HEADER = Buffer.from('SQLite format 3\u0000', 'latin1');

export interface CopySource {
  /** The ledger file, absolute. */
  readonly file: string;
  /** Read-only, inside one read transaction (the snapshot every table is read from). */
  readonly db: Database.Database;
  readonly version: number;
  /** With --force-snapshot beside a running daemon: that daemon (what it does after the snapshot is not copied). */
  readonly runningDaemon: LockInfo | undefined;
  /** Ends the read transaction, closes the file and releases the lock. Idempotent. */
  close(): void;
}

function refused(message: string, context: Record<string, unknown>): EdocError {
  return new EdocError('EDOC_LEDGER_COPY_REFUSED', message, context);
}

function inUse(stateDir: string, holder: LockInfo): EdocError {
  return refused(
    `The state folder ${stateDir} is in use by a running edoc-bridge (pid ${holder.pid}, started ${holder.startedAt}): ` +
      'stop it first, so that no document changes after the copy (or copy a snapshot of it with --force-snapshot; ' +
      'what it does after the snapshot is not copied)',
    { stateDir, pid: holder.pid },
  );
}

/** `from`: the ledger file, or the state folder holding it. */
function ledgerFile(from: string): string {
  const resolved = path.resolve(from);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(resolved);
  } catch {
    stat = undefined;
  }
  const file = stat?.isDirectory() ? path.join(resolved, SQLITE_FILE) : resolved;
  if (!fs.existsSync(file)) throw refused(`There is no SQLite ledger at ${file}`, { file });
  // before the folder's lock is taken: a wrong --from must not leave a lock file in some other folder
  if (!isSqliteFile(file))
    throw refused(`${file} is not a SQLite database, so not an edoc-bridge ledger`, { file });
  return file;
}

/** Whether `file` starts with SQLite's header. */
function isSqliteFile(file: string): boolean {
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    return (
      fs.readSync(fd, header, 0, header.length, 0) === header.length && header.equals(SQLITE_HEADER)
    );
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Takes the folder's lock; undefined when it cannot (a live daemon with --force-snapshot, or a read-only folder with none). */
function lockFolder(
  stateDir: string,
  forceSnapshot: boolean,
): { lock?: HeldLock; running?: LockInfo } {
  try {
    return { lock: acquireLock(stateDir) };
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code ?? '';
    if (!isEdocError(err, 'EDOC_LEDGER_LOCKED') && !UNWRITABLE.has(errno)) throw err;
    const holder =
      lockHolder(stateDir) ??
      (isEdocError(err)
        ? { pid: Number(err.context.pid), startedAt: String(err.context.startedAt) }
        : undefined);
    if (holder === undefined) return {};
    if (!forceSnapshot) throw inUse(stateDir, holder);
    return { running: holder };
  }
}

/** Opens the ledger at `from` for the copy (see the file's comment for what it refuses and why). */
export function openCopySource(from: string, forceSnapshot: boolean): CopySource {
  const file = ledgerFile(from);
  const stateDir = path.dirname(file);
  const { lock, running } = lockFolder(stateDir, forceSnapshot);
  let db: Database.Database | undefined;
  try {
    try {
      db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
      db.exec('BEGIN');
      // the deferred BEGIN takes its snapshot at the first read: this one, before any table is counted
      const version = db.pragma('user_version', { simple: true }) as number;
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
      if (version !== SCHEMA_VERSION) {
        throw refused(
          version === 0
            ? `${file} is not an edoc-bridge ledger (schema version 0)`
            : `The SQLite ledger ${file} has schema version ${version}; this edoc-bridge copies version ${SCHEMA_VERSION}. ` +
                (version < SCHEMA_VERSION
                  ? "Upgrade it first: start this version's daemon on it once, or run edoc-bridge ledger migrate with a configuration without ledger.url"
                  : 'Copy it with the edoc-bridge version that wrote it'),
          { file, version, expected: SCHEMA_VERSION },
        );
      }
      const source = db;
      let closed = false;
      return {
        file,
        db: source,
        version,
        runningDaemon: running,
        close() {
          if (closed) return;
          closed = true;
          try {
            if (source.open) source.close();
          } finally {
            if (lock) releaseLock(lock);
          }
        },
      };
    } catch (err) {
      if (isEdocError(err)) throw err;
      throw refused(`${file} could not be read as a SQLite ledger: ${(err as Error).message}`, {
        file,
      });
    }
  } catch (err) {
    if (db?.open) db.close();
    if (lock) releaseLock(lock);
    throw err;
  }
}
