/**
 * A file being read: its format facts, then the end of the read: all its documents stored and the file
 * unchanged (finishReading), or a file-level error (failRead).
 */
import { NO_FENCE, type Fence } from './fence.js';
import { json } from './rows.js';
import type { SqlExecutor, SqlParams } from './sql/executor.js';

import type { FileError } from './types.js';

import { addEvent } from './events.js';
import { updateFile, type ReadDetails } from './files.js';
import { lockWaits } from './note-references.js';
import { NOT_WAITING, settleWaits } from './reference-waits.js';
import { removeDocumentsTx } from './superseded-files.js';

/** The file's row as failed to read (`where`: a further condition); whether a row was changed. */
async function failFile(
  tx: SqlExecutor,
  fileId: number,
  error: FileError,
  now: number,
  fence: Fence,
  where: '' | " AND state = 'reading'",
): Promise<boolean> {
  const file = await tx.get<{ company: string }>(
    `UPDATE files SET state = 'failed-read', error = ?, finished_at = ? WHERE id = ?${where}
    RETURNING company`,
    [json(error), now, fileId],
  );
  if (file === undefined) return false;
  await fence(tx, [file.company]);
  await lockWaits(tx, file.company);
  return true;
}
/** Format facts known as soon as the reader opened the file (the retry file needs them). */
export function setReadDetails(
  q: SqlExecutor,
  fileId: number,
  d: ReadDetails,
  fence: Fence = NO_FENCE,
): Promise<void> {
  return updateFile(q, fence, READ_DETAILS_SQL, readDetailsParams(fileId, d));
}

const READ_DETAILS_SQL = 'UPDATE files SET format = ?, encoding = ?, header = ? WHERE id = ?';

function readDetailsParams(fileId: number, d: ReadDetails): SqlParams {
  return [d.format, d.encoding ?? null, d.header ?? null, fileId];
}

/**
 * Every document of the file is in the ledger and the file was found unchanged: it is `open` until they
 * are all final, and its pending documents are released (due now) in the same transaction, but for notes
 * still waiting for another file's read; the notes that waited for this one are settled (reference-waits.ts).
 */
export function finishReading(
  q: SqlExecutor,
  fileId: number,
  now: number,
  fence: Fence = NO_FENCE,
  details?: ReadDetails,
): Promise<void> {
  return q.transaction(async (tx) => {
    const total = (await tx.get<{ n: number }>(
      'SELECT CAST(coalesce(sum(n), 0) AS BIGINT) AS n FROM file_counts WHERE file_id = ?',
      [fileId],
    ))!.n;
    const file = await tx.get<{ company: string }>(
      `UPDATE files SET state = 'open', total = ? WHERE id = ? AND state = 'reading'
      RETURNING company`,
      [total, fileId],
    );
    if (file === undefined) return;
    await fence(tx, [file.company]);
    await lockWaits(tx, file.company);
    if (details !== undefined) await tx.run(READ_DETAILS_SQL, readDetailsParams(fileId, details));
    const released = (
      await tx.run(
        `UPDATE documents SET next_attempt_at = ? WHERE file_id = ? AND state = 'pending'
      AND next_attempt_at IS NULL AND ${NOT_WAITING}`,
        [now, fileId],
      )
    ).changes;
    await settleWaits(tx, fileId, now);
    await addEvent(tx, now, 'file-read', fileId, null, { total, released });
  });
}

/**
 * The file could not be read to the end: a file-level error. Documents read before the failure that
 * have not been sent are not sent (stored `invalid`, so they land in the retry file): the user fixes
 * and drops the file again, and a half-sent broken file would otherwise issue twice. Documents already
 * sent finish normally. Returns how many were held back.
 */
export function failRead(
  q: SqlExecutor,
  fileId: number,
  error: FileError,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<number> {
  return q.transaction(async (tx) => {
    await failFile(tx, fileId, error, now, fence, '');
    const held = (
      await tx.run(
        `UPDATE documents SET state = 'invalid', next_attempt_at = NULL, errors = ?, updated_at = ?
      WHERE file_id = ? AND state = 'pending'`,
        [
          JSON.stringify([
            {
              code: error.code,
              message: `Not sent: the file could not be read to the end (${error.message}).`,
            },
          ]),
          now,
          fileId,
        ],
      )
    ).changes;
    await addEvent(tx, now, 'file-failed-read', fileId, null, { ...error, heldBack: held });
    await settleWaits(tx, fileId, now);
    return held;
  });
}

/**
 * The file is refused whole while it is read (EDOC_MAP_FORMAT_MISMATCH: its cells are in another
 * convention than its mapping's, so every document read from it may be wrong): the documents stored
 * of it are removed, none of which was released, and it is `failed-read` with no documents, as a file
 * refused before its first document; its report holds the file-level error and no retry file, and
 * the original is the one to drop again. Their keys (or ERP keys) are kept in `refused_whole_documents`,
 * so a note naming one of them is held as never issued. Only from `reading`; returns how many documents
 * were removed.
 */
export function refuseWhole(
  q: SqlExecutor,
  fileId: number,
  error: FileError,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<number> {
  return q.transaction(async (tx) => {
    if (!(await failFile(tx, fileId, error, now, fence, " AND state = 'reading'"))) return 0;
    // what they were stays, for a later note naming one of them (note-references.ts)
    await tx.run(
      `INSERT INTO refused_whole_documents(file_id, idx, company, kind, key, erp_key)
      SELECT file_id, idx, company, kind, key, erp_key FROM documents
      WHERE file_id = ? AND (key IS NOT NULL OR erp_key IS NOT NULL)`,
      [fileId],
    );
    const removed = await removeDocumentsTx(tx, fileId);
    await addEvent(tx, now, 'file-failed-read', fileId, null, { ...error, removed });
    await settleWaits(tx, fileId, now);
    return removed;
  });
}

/**
 * A file left `reading` by an earlier attempt (a stop, a crash, a lease lost) is read again from its
 * first row: the documents stored of it are removed first (none was released), so that every document
 * of the file comes from one read under one mapping, the one in force now. Kept, the earlier attempt's
 * would be released beside the new read's although a restart, a reload or another node's configuration
 * changed the mapping in between (`1.250` read as 1250 by the first, 1.25 by the second). Only from
 * `reading`; returns how many documents were removed.
 */
export function readAgain(
  q: SqlExecutor,
  fileId: number,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<number> {
  return q.transaction(async (tx) => {
    const file = await tx.get<{ company: string }>(
      "SELECT company FROM files WHERE id = ? AND state = 'reading'",
      [fileId],
    );
    if (file === undefined) return 0;
    await fence(tx, [file.company]);
    const removed = await removeDocumentsTx(tx, fileId);
    if (removed > 0) await addEvent(tx, now, 'file-read-again', fileId, null, { removed });
    return removed;
  });
}

const WRITTEN_ON_AFTER_READ =
  'Not sent: the file was written on after it was read (it was taken unfinished); its complete content is taken as a new file.';

/**
 * A file that failed at its read (`failed-read`, nothing of it ever released) and whose archived copy was
 * then written on: it was taken at a writer's pause, so the error its unfinished content gave says nothing
 * about the export. `error(earlier)` becomes its file-level error (EDOC_READ_CHANGED), the documents read
 * before the failure carry that code, which keeps them out of the retry file (the complete copy sends
 * them), and its report is written again. Returns false when the file is not `failed-read` or was
 * flagged so already.
 */
export function flagWrittenOnAfterRead(
  q: SqlExecutor,
  fileId: number,
  error: (earlier: FileError) => FileError,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<boolean> {
  return q.transaction(async (tx) => {
    const row = await tx.get<{ error: string | null; company: string; state: string }>(
      'SELECT error, company, state FROM files WHERE id = ?',
      [fileId],
    );
    if (row === undefined || row.state !== 'failed-read' || row.error === null) return false;
    const earlier = JSON.parse(row.error) as FileError;
    if (earlier.code === 'EDOC_READ_CHANGED') return false;
    await fence(tx, [row.company]);
    const next = error(earlier);
    await tx.run(`UPDATE files SET error = ?, report_state = 'none' WHERE id = ?`, [
      json(next),
      fileId,
    ]);
    await tx.run(
      `UPDATE documents SET errors = ?, updated_at = ? WHERE file_id = ? AND state = 'invalid'`,
      [JSON.stringify([{ code: next.code, message: WRITTEN_ON_AFTER_READ }]), now, fileId],
    );
    await addEvent(tx, now, 'file-written-on-after-read', fileId, null, {
      ...next,
      earlier: earlier.code,
    });
    return true;
  });
}
