/**
 * Recovery of the `sending` marks a stopped process left (resend what has its own number, the rest
 * in-doubt), and setting documents in-doubt. Each is one transaction, fenced by the companies of the
 * documents it changed.
 */
import { sendingAtStart } from './due-documents.js';
import { NO_FENCE, type Fence } from './fence.js';
import { addEvent } from './events.js';
import type { SqlExecutor } from './sql/executor.js';
import { inDoubtAdvice } from './number-text.js';

export function recoverSending(
  q: SqlExecutor,
  now: number,
  company?: string,
  fence: Fence = NO_FENCE,
): Promise<{ resent: number[]; inDoubt: number[] }> {
  // The read inside the write transaction: what is recovered is exactly what was `sending` (port.ts's atomicity rule).
  return q.transaction(async (tx) => {
    const docs = await sendingAtStart(tx, company);
    await fence(
      tx,
      docs.map((d) => d.company),
    );
    const resend = docs.filter((d) => d.ownNumber);
    const doubt = docs.filter((d) => !d.ownNumber).map((d) => d.id);
    // The request may have left before the stop: the sticky flag makes a repeated-number answer to the
    // resend in-doubt rather than a clash (or an acceptance we cannot confirm).
    for (const d of resend) {
      await tx.run(
        `UPDATE documents SET state = 'pending', next_attempt_at = ?, updated_at = ?, maybe_delivered = 1,
        last_outcome = '{"kind":"unknown","reason":"crash"}' WHERE id = ? AND state = 'sending'`,
        [now, now, d.id],
      );
      await addEvent(tx, now, 'resend-after-crash', d.fileId, d.id, { attempts: d.attempts });
      await addEvent(tx, now, 'maybe-delivered', d.fileId, d.id, { reason: 'crash while sending' });
    }
    await setInDoubtTx(
      tx,
      doubt,
      now,
      `The process stopped after the request was sent; the document has no own number. ${inDoubtAdvice()}`,
      NO_FENCE,
    );
    return { resent: resend.map((d) => d.id), inDoubt: doubt };
  });
}

async function setInDoubtTx(
  tx: SqlExecutor,
  ids: readonly number[],
  now: number,
  reason: string,
  fence: Fence,
): Promise<number[]> {
  // Only ever for requests that may have gone out (recovery of `sending`): the sticky flag goes with it.
  const done: number[] = [];
  const companies = new Set<string>();
  const errors = JSON.stringify([{ code: 'EDOC_SUBMIT_IN_DOUBT', message: reason }]);
  for (const id of ids) {
    const row = await tx.get<{ file_id: number; company: string }>(
      `UPDATE documents SET state = 'in-doubt', errors = ?,
      next_attempt_at = NULL, updated_at = ?, doubt = 'no-answer', maybe_delivered = 1 WHERE id = ? AND state IN ('sending','pending')
      RETURNING file_id, company`,
      [errors, now, id],
    );
    if (!row) continue;
    companies.add(row.company);
    await addEvent(tx, now, 'in-doubt', row.file_id, id, { reason });
    done.push(id);
  }
  await fence(tx, companies);
  return done;
}

export function setInDoubt(
  q: SqlExecutor,
  ids: readonly number[],
  now: number,
  reason: string,
  fence: Fence = NO_FENCE,
): Promise<number[]> {
  return q.transaction((tx) => setInDoubtTx(tx, ids, now, reason, fence));
}
