/**
 * Resend requests (`edoc-bridge resend`): the open request for a content, and the new file of that
 * content taking it when it is recorded.
 */
import type { SqlExecutor } from './sql/executor.js';

import { addEvent } from './events.js';

export interface ResendRequest {
  id: number;
  fileId: number;
  requestedAt: number;
}

/** Open (not yet taken) request for this content, if any. */
export async function openResend(
  q: SqlExecutor,
  company: string,
  kind: string,
  sha256: string,
): Promise<ResendRequest | undefined> {
  const r = await q.get<{ id: number; file_id: number; requested_at: number }>(
    `SELECT id, file_id, requested_at FROM resend_requests
    WHERE company = ? AND kind = ? AND sha256 = ? AND taken_by IS NULL ORDER BY id LIMIT 1`,
    [company, kind, sha256],
  );
  return r ? { id: r.id, fileId: r.file_id, requestedAt: r.requested_at } : undefined;
}

/** Inside recordFile's transaction: the new file `fileId` takes the open request for its content. */
export async function takeResend(
  tx: SqlExecutor,
  request: ResendRequest,
  fileId: number,
  now: number,
): Promise<void> {
  await tx.run(
    'UPDATE resend_requests SET taken_by = ?, taken_at = ? WHERE id = ? AND taken_by IS NULL',
    [fileId, now, request.id],
  );
  await addEvent(tx, now, 'file-resend', fileId, null, {
    request: request.id,
    resendOf: request.fileId,
  });
}
