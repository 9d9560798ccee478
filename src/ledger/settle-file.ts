/**
 * Settling a file once its documents are final: finished, its final report written, its original
 * archived.
 */
import { NO_FENCE, type Fence } from './fence.js';
import type { SqlExecutor } from './sql/executor.js';

import type { ReportState } from './types.js';

import { addEvent } from './events.js';
import { updateFile } from './files.js';
/**
 * Every document is final: the file is done. Returns false when it was not open or a document of it
 * is still pending or sending — checked here, in the same statement as the change, so a re-queue
 * committed after the caller read the file's progress is never overwritten (the ledger port's
 * atomicity rule, port.ts).
 */
export function finishFile(
  q: SqlExecutor,
  fileId: number,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<boolean> {
  return q.transaction(async (tx) => {
    const file = await tx.get<{ company: string }>(
      `UPDATE files SET state = 'done', finished_at = ? WHERE id = ? AND state = 'open'
      AND NOT EXISTS (SELECT 1 FROM file_counts WHERE file_id = files.id AND state IN ('pending','sending') AND n > 0) RETURNING company`,
      [now, fileId],
    );
    if (file === undefined) return false;
    await fence(tx, [file.company]);
    await addEvent(tx, now, 'file-done', fileId, null);
    return true;
  });
}

export function markReported(
  q: SqlExecutor,
  fileId: number,
  state: ReportState,
  fence: Fence = NO_FENCE,
): Promise<void> {
  // a progress report after another changes nothing: no write, so no commit (fsync) of its own; under a
  // fence the write stays, checked against the lease as before. A transaction, not a statement on its
  // own: the reports of several files recorded in one turn share one commit (the report scheduler's).
  if (fence === NO_FENCE)
    return q.transaction(async (tx) => {
      await tx.run('UPDATE files SET report_state = ? WHERE id = ? AND report_state <> ?', [
        state,
        fileId,
        state,
      ]);
    });
  return updateFile(q, fence, 'UPDATE files SET report_state = ? WHERE id = ?', [state, fileId]);
}

export function markArchived(
  q: SqlExecutor,
  fileId: number,
  archivedPath: string,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<void> {
  return q.transaction(async (tx) => {
    const file = await tx.get<{ company: string }>(
      'UPDATE files SET archived_path = ? WHERE id = ? RETURNING company',
      [archivedPath, fileId],
    );
    if (file !== undefined) await fence(tx, [file.company]);
    await addEvent(tx, now, 'file-archived', fileId, null, { archivedPath });
  });
}
