/**
 * What a new file at a path does to the file recorded there before: an intake of which nothing was
 * sent is dropped; a file whose documents were released is flagged as changed after sending began.
 */
import { NO_FENCE, type Fence } from './fence.js';
import { json } from './rows.js';
import { greatest } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import { CHANGED_AFTER_SEND } from './types.js';

import type { FileError, RecordFileInput } from './types.js';

import { addEvent } from './events.js';
import { lockWaits } from './note-references.js';
import { removeWaitsOf, settleWaits } from './reference-waits.js';

/**
 * Deletes an intake of which nothing was sent: the file is still `reading`, so its documents were
 * never due (insertDocuments holds them back). Duplicates recorded against it lose their link (the
 * content they named was never processed), and a cluster node's claim of it is removed. Returns the file's company, or undefined when it is not `reading`.
 */
export async function dropIntakeTx(
  tx: SqlExecutor,
  fileId: number,
  now: number,
  data: Record<string, unknown>,
): Promise<string | undefined> {
  const row = await tx.get<{ state: string; company: string }>(
    'SELECT state, company FROM files WHERE id = ?',
    [fileId],
  );
  if (row?.state !== 'reading') return undefined;
  await lockWaits(tx, row.company);
  const docs = await removeDocumentsTx(tx, fileId);
  // notes waiting for it: what they name is gone with it (taken again, it is a new file)
  await settleWaits(tx, fileId, now);
  await tx.run('UPDATE files SET duplicate_of = NULL WHERE duplicate_of = ?', [fileId]);
  // PostgreSQL: the node's claim of the file (cluster/file-claims.ts) goes with it; taken again, it is claimed anew
  if (tx.dialect === 'postgres')
    await tx.run('DELETE FROM file_claims WHERE file_id = ?', [fileId]);
  await tx.run('DELETE FROM files WHERE id = ?', [fileId]);
  // SQLite would hand the highest id out again: remember it, so events and logs never name two files by one id
  // (PostgreSQL's identity never does; the row is kept the same there all the same)
  await tx.run(
    `INSERT INTO kv(key, value, updated_at) VALUES ('files.lastDroppedId', ?, ?)
    ON CONFLICT(key) DO UPDATE SET value = CAST(${greatest(tx, 'CAST(kv.value AS BIGINT)', 'CAST(excluded.value AS BIGINT)')} AS TEXT),
    updated_at = excluded.updated_at`,
    [String(fileId), now],
  );
  await addEvent(tx, now, 'file-dropped', fileId, null, { ...data, documents: docs });
  return row.company;
}

/** Deletes every document of a file (never released: it is `reading`) with its body and counts; returns how many. */
export async function removeDocumentsTx(tx: SqlExecutor, fileId: number): Promise<number> {
  await removeWaitsOf(tx, fileId);
  await tx.run(
    'DELETE FROM document_bodies WHERE id IN (SELECT id FROM documents WHERE file_id = ?)',
    [fileId],
  );
  const docs = (await tx.run('DELETE FROM documents WHERE file_id = ?', [fileId])).changes;
  await tx.run('DELETE FROM file_counts WHERE file_id = ?', [fileId]);
  return docs;
}

export function dropIntake(
  q: SqlExecutor,
  fileId: number,
  now: number,
  data: Record<string, unknown>,
  fence: Fence = NO_FENCE,
): Promise<boolean> {
  return q.transaction(async (tx) => {
    // the fence first: dropIntakeTx takes the company's lock of note waits, always after it
    const row = await tx.get<{ company: string }>(
      "SELECT company FROM files WHERE id = ? AND state = 'reading'",
      [fileId],
    );
    if (row === undefined) return false;
    await fence(tx, [row.company]);
    return (await dropIntakeTx(tx, fileId, now, data)) !== undefined;
  });
}

/** What flagging a file held back: its documents, those held (pending), and how many of those may have reached the service. */
export interface HeldBack {
  documents: number;
  held: number;
  maybeDelivered: number;
}

const NOT_SENT =
  'Not sent: the file changed after sending began; its new content is taken as a new file.';
const NOT_SENT_AGAIN =
  'Not sent again: the file changed while this document waited for a retry, and an earlier attempt may have ' +
  'reached the service, so it may be issued already from the earlier content. Its new content is taken as a ' +
  'new file (an answer that the number is issued tells there); do not give it another number.';

/**
 * flagChangedTx inside a transaction: the company of the file flagged, or undefined. `error` may be made
 * from what was held back, so the file-level message says what happened to the documents.
 */
export async function flagChangedTx(
  tx: SqlExecutor,
  fileId: number,
  error: FileError | ((held: HeldBack) => FileError),
  now: number,
): Promise<string | undefined> {
  const row = await tx.get<{ error: string | null; company: string }>(
    'SELECT error, company FROM files WHERE id = ?',
    [fileId],
  );
  if (row === undefined || (row.error !== null && row.error.includes(CHANGED_AFTER_SEND)))
    return undefined;
  // a pending document whose earlier attempt may have reached the service is not "not sent"
  const hold = async (maybe: 0 | 1, message: string): Promise<number> =>
    (
      await tx.run(
        `UPDATE documents SET state = 'invalid', next_attempt_at = NULL, errors = ?, updated_at = ?
      WHERE file_id = ? AND state = 'pending' AND maybe_delivered = ?`,
        [JSON.stringify([{ code: CHANGED_AFTER_SEND, message }]), now, fileId, maybe],
      )
    ).changes;
  const maybeDelivered = await hold(1, NOT_SENT_AGAIN);
  const held = (await hold(0, NOT_SENT)) + maybeDelivered;
  const documents = Number(
    (
      await tx.get<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM documents WHERE file_id = ?',
        [fileId],
      )
    )?.n ?? 0,
  );
  const fileError =
    typeof error === 'function' ? error({ documents, held, maybeDelivered }) : error;
  await tx.run(`UPDATE files SET error = ?, report_state = 'none' WHERE id = ?`, [
    json(fileError),
    fileId,
  ]);
  await addEvent(tx, now, 'file-changed-after-send', fileId, null, {
    ...fileError,
    heldBack: held,
  });
  return row.company;
}

/**
 * The original of a file whose documents were released (sending began) changed: a file-level error on
 * it, and its report is written again. Documents already sent keep their outcomes; those not sent yet
 * are not sent from content that is no longer the file's (stored `invalid`, like failRead): the new
 * content sends them. Returns false when it carried that error already.
 */
export function flagChangedAfterSend(
  q: SqlExecutor,
  fileId: number,
  error: FileError,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<boolean> {
  return q.transaction(async (tx) => {
    const company = await flagChangedTx(tx, fileId, error, now);
    if (company === undefined) return false;
    await fence(tx, [company]);
    return true;
  });
}

/**
 * The file last recorded from this path whose content is not `sha256`, when its documents were released
 * and its original is still ours (not archived): new content there means the file changed after
 * sending began. `edoc-bridge submit` files (never archived) count only while still open.
 */
export async function releasedAtPath(
  q: SqlExecutor,
  input: RecordFileInput,
): Promise<{ id: number; name: string; report_name: string; error: string | null } | undefined> {
  const last = await q.get<{
    id: number;
    name: string;
    report_name: string;
    state: string;
    sha256: string;
    error: string | null;
    archive: number | null;
    archived_path: string | null;
  }>(
    `SELECT id, name, report_name, state, sha256, error, archive, archived_path
    FROM files WHERE company = ? AND kind = ? AND path = ? ORDER BY id DESC LIMIT 1`,
    [input.company, input.kind, input.path],
  );
  if (last === undefined || last.sha256 === input.sha256) return undefined;
  const flagged = last.error !== null && last.error.includes(CHANGED_AFTER_SEND);
  const ours =
    last.archived_path === null &&
    (last.state === 'open' || (last.state === 'done' && last.archive === 1));
  return flagged || ours ? last : undefined;
}
