/**
 * Which failures mean "the disk is full (or failing)": one place, so the ledger, the outbox and the
 * CLI pause or explain the same way. A full disk is a state to wait out, not a bad document.
 */
import { EdocError, isEdocError } from '../errors.js';

/** SQLite's own codes (better-sqlite3 puts them in `code`): SQLITE_FULL, SQLITE_IOERR and its extended forms. */
const SQLITE_CODES = /^SQLITE_(FULL|IOERR)/;
/** errno codes of a file system that refuses to grow a file. */
const ERRNO_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
/** PostgreSQL's SQLSTATEs for the same (node-postgres puts them in `code`): disk_full, io_error. */
const POSTGRES_CODES = new Set(['53100', '58030']);

function codeOf(err: object): string | undefined {
  const code = (err as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (SQLITE_CODES.test(code) || ERRNO_CODES.has(code) || POSTGRES_CODES.has(code))
  )
    return code;
  // our own errors keep the system's code in context.errno (EDOC_REPORT_WRITE, EDOC_REPORT_ARCHIVE…)
  const errno = isEdocError(err) ? err.context.errno : undefined;
  return typeof errno === 'string' && ERRNO_CODES.has(errno) ? errno : undefined;
}

/** The SQLite, PostgreSQL or errno code that makes `err` (or one of its causes) a storage failure, if any. */
export function storageFullCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && typeof e === 'object' && e !== null; depth++) {
    if (isEdocError(e, 'EDOC_STORAGE_FULL'))
      return typeof e.context.errno === 'string' ? e.context.errno : 'EDOC_STORAGE_FULL';
    const code = codeOf(e);
    if (code !== undefined) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isStorageFull(err: unknown): boolean {
  return storageFullCode(err) !== undefined;
}

/** `err` as EDOC_STORAGE_FULL (once), naming what could not be written. */
export function storageFullError(err: unknown, what: string): EdocError {
  if (isEdocError(err, 'EDOC_STORAGE_FULL')) return err;
  const errno = storageFullCode(err) ?? 'unknown';
  const reason = err instanceof Error ? err.message : String(err);
  return new EdocError(
    'EDOC_STORAGE_FULL',
    `The disk is full (or failing): ${what} could not be written (${reason}). Free space and run the command again; nothing is sent twice.`,
    { errno },
    { cause: err },
  );
}
