/**
 * A note naming a document held back in another file still being read (note-references.ts) cannot be
 * judged yet: that file's read may end with its documents released, failed (`invalid`) or removed (a
 * file refused whole). The note is stored pending and held back (no `next_attempt_at`) with a row here
 * naming that file; the end of its read (finishReading, failRead, refuseWhole, dropIntake), in the same
 * transaction, checks each note waiting for it again and applies the outcome: held `invalid` with
 * EDOC_LEDGER_REFERENCE_NOT_ISSUED, waiting for another file, or released (due now; left held back
 * while the note's own file is read, whose end releases it). The row is then `settled` until the intake
 * that ended the read takes it (`takeSettledNotes`) to touch the note's file's report.
 */
import { parseKind } from '../kinds/index.js';
import { addEvent } from './events.js';
import { checkReferences, unknownReferenceWarning } from './note-references.js';
import type { SqlExecutor } from './sql/executor.js';

/** Records that the note just stored at `index` of `noteFile` (naming `refs`) waits for the file `fileId`. */
export async function recordWait(
  tx: SqlExecutor,
  note: { fileId: number; index: number },
  fileId: number,
  refs: readonly string[],
): Promise<void> {
  // by (file_id, idx): SQLite's insert does not read the new rows' ids (insert-document-rows.ts)
  await tx.run(
    `INSERT INTO reference_waits(document_id, file_id, refs, settled)
    SELECT id, ?, ?, 0 FROM documents WHERE file_id = ? AND idx = ?`,
    [fileId, JSON.stringify(refs), note.fileId, note.index],
  );
}

/** Whether a pending document is a note still waiting (finishReading leaves it held back). */
export const NOT_WAITING =
  'NOT EXISTS (SELECT 1 FROM reference_waits w WHERE w.document_id = documents.id AND w.settled = 0)';

/** The read of `fileId` ended: every note waiting for it is checked again, and the outcome applied. */
export async function settleWaits(tx: SqlExecutor, fileId: number, now: number): Promise<void> {
  const waiting = await tx.all<{
    id: number;
    refs: string;
    state: string;
    company: string;
    kind: string;
    file_id: number;
    file_state: string;
  }>(
    `SELECT d.id, w.refs, d.state, d.company, d.kind, d.file_id, f.state AS file_state
    FROM reference_waits w JOIN documents d ON d.id = w.document_id JOIN files f ON f.id = d.file_id
    WHERE w.file_id = ? AND w.settled = 0 ORDER BY d.id`,
    [fileId],
  );
  for (const note of waiting) {
    const refs = JSON.parse(note.refs) as string[];
    const kind = parseKind(note.kind, `ledger document ${note.id}`);
    const check =
      note.state === 'pending'
        ? await checkReferences(tx, note.company, kind, refs, undefined, note.file_id)
        : undefined;
    if (check !== undefined && 'waitsFor' in check) {
      await tx.run('UPDATE reference_waits SET file_id = ? WHERE document_id = ?', [
        check.waitsFor.fileId,
        note.id,
      ]);
      continue;
    }
    await tx.run('UPDATE reference_waits SET settled = 1 WHERE document_id = ?', [note.id]);
    if (note.state !== 'pending') continue;
    if (check !== undefined && 'notIssued' in check) {
      await tx.run(
        `UPDATE documents SET state = 'invalid', next_attempt_at = NULL, problems = ?, updated_at = ?
        WHERE id = ? AND state = 'pending'`,
        [JSON.stringify([check.notIssued]), now, note.id],
      );
    } else if (note.file_state !== 'reading') {
      await tx.run(
        `UPDATE documents SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND state = 'pending'
        AND next_attempt_at IS NULL`,
        [now, now, note.id],
      );
    }
    // sent as an unknown reference: its report warns as for a note taken before its invoice's file
    if (check !== undefined && 'unknown' in check)
      await tx.run(
        `UPDATE documents SET warnings = ? WHERE id = ? AND state = 'pending' AND warnings IS NULL`,
        [JSON.stringify([unknownReferenceWarning(kind, check.unknown)]), note.id],
      );
    await addEvent(tx, now, 'reference-settled', note.file_id, note.id, {
      waitedFor: fileId,
      outcome: check === undefined ? 'released' : 'notIssued' in check ? 'invalid' : 'unknown',
      ...(check !== undefined && 'unknown' in check ? { references: check.unknown } : {}),
    });
  }
}

/**
 * The files of the notes whose wait for `fileId` was settled (their reports are due), taken: the rows
 * go. A crash before this leaves them settled; the start touches every unfinished file's report anyway.
 */
export async function takeSettledNotes(q: SqlExecutor, fileId: number): Promise<number[]> {
  const settled = `SELECT DISTINCT d.file_id FROM reference_waits w JOIN documents d ON d.id = w.document_id
      WHERE w.file_id = ? AND w.settled = 1 ORDER BY d.file_id`;
  // the read of almost every file settles no note: a look, no transaction (one per file taken in)
  if ((await q.all(settled, [fileId])).length === 0) return [];
  return q.transaction(async (tx) => {
    const rows = await tx.all<{ file_id: number }>(settled, [fileId]);
    if (rows.length > 0)
      await tx.run('DELETE FROM reference_waits WHERE file_id = ? AND settled = 1', [fileId]);
    return rows.map((r) => Number(r.file_id));
  });
}

/** The waits of a file's documents go with them (removeDocumentsTx). */
export async function removeWaitsOf(tx: SqlExecutor, fileId: number): Promise<void> {
  await tx.run(
    'DELETE FROM reference_waits WHERE document_id IN (SELECT id FROM documents WHERE file_id = ?)',
    [fileId],
  );
}
