/**
 * The `sending` mark (intent, committed before a request leaves) and its withdrawal. Each is one
 * transaction, fenced by the companies of the documents it changed (a cluster node that lost a
 * company's lease commits nothing for it). Verdicts are in verdicts.ts, recovery of marks a stopped
 * process left in recover-sending.ts.
 */
import { KEY_IN_FLIGHT_DELAY_MS } from './due-documents.js';
import { NO_FENCE, type Fence } from './fence.js';
import { addEvent } from './events.js';
import {
  ERP_KEY_IN_DOUBT_DELAY_MS,
  erpKeyOf,
  erpKeyStates,
  settleErpKeyDuplicate,
} from './erp-keys.js';
import { idList, INT_PARAM } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import { ISSUED_COLUMNS, otherContentProblem, type IssuedRow } from './issued-content.js';
import type { MarkSendingResult, ReportProblem } from './types.js';

/**
 * Marks a batch `sending` with its attempt number in ONE transaction. The caller must not let the
 * requests leave before this returns: after a crash, `sending` is the only trace that a request may
 * have reached the service, and it decides between resending (own number) and in-doubt.
 */
export async function markSendingTx(
  tx: SqlExecutor,
  ids: readonly number[],
  now: number,
  fence: Fence,
): Promise<MarkSendingResult> {
  // One statement reads the whole batch with its key checks; one updates and one logs the documents to
  // send (the hot path: a handful of statements per batch rather than seven per document).
  // On PostgreSQL the read locks the batch's rows (FOR UPDATE): a second mark of one document, on another
  // connection, waits for this one and then finds it `sending` (SQLite runs one writer at a time anyway).
  // first: it locks (PostgreSQL) every document sharing an ERP key with the batch (erp-keys.ts)
  const erp = await erpKeyStates(tx, ids);
  const batch = idList(tx, ids);
  const rows = new Map(
    (
      await tx.all<{
        id: number;
        file_id: number;
        company: string;
        key: string | null;
        kind: string;
        erp_key: string | null;
        source: string;
        content: string | null;
        state: string;
        dup: number | null;
        busy: number;
      }>(
        `SELECT d.id, d.file_id, d.company, d.key, d.kind, d.erp_key, d.source, d.content, d.state,
      CASE WHEN d.key IS NULL THEN NULL ELSE
        (SELECT a.id FROM documents a WHERE a.key = d.key AND a.state = 'accepted' AND a.id <> d.id LIMIT 1) END AS dup,
      CASE WHEN d.key IS NOT NULL AND EXISTS (SELECT 1 FROM documents s WHERE s.key = d.key AND s.state = 'sending' AND s.id <> d.id)
        THEN 1 ELSE 0 END AS busy
    FROM documents d WHERE d.id IN ${batch.sql}${tx.dialect === 'postgres' ? ' FOR UPDATE OF d' : ''}`,
        [batch.param],
      )
    ).map((r) => [r.id, r]),
  );
  const result: MarkSendingResult = { sending: [], duplicate: [], skipped: [], deferred: [] };
  const companies = new Set<string>();
  const keys = new Set<string>();
  const erpKeys = new Set<string>();
  for (const id of ids) {
    const d = rows.get(id);
    if (!d || d.state !== 'pending') {
      result.skipped.push(id);
      continue;
    }
    companies.add(d.company);
    if (d.dup !== null) {
      // accepted meanwhile (another file's copy was sent first): the same content, or a corrected copy that needs a person
      const other = await otherContentSince(tx, id, d.dup);
      await tx.run(
        `UPDATE documents SET state = 'duplicate', errors = ?, updated_at = ? WHERE id = ?`,
        [
          JSON.stringify([
            other ?? {
              code: 'EDOC_LEDGER_DUPLICATE_KEY',
              message: 'Already accepted; not sent again.',
            },
          ]),
          now,
          id,
        ],
      );
      await addEvent(tx, now, 'duplicate-key', d.file_id, id, {
        key: d.key,
        acceptedDocument: d.dup,
        ...(other === undefined ? {} : { otherContent: true }),
      });
      result.duplicate.push(id);
      if (other !== undefined) (result.otherContent ??= new Map()).set(id, other.message);
      continue;
    }
    const byErp = erp.get(id);
    if (byErp?.to === 'accepted' && d.erp_key !== null) {
      // the ERP's key of a document the service numbers was issued meanwhile (another export's copy went first)
      const other = await settleErpKeyDuplicate(
        tx,
        now,
        { ...d, erp_key: d.erp_key },
        byErp.issued,
      );
      result.duplicate.push(id);
      if (other !== undefined) (result.otherContent ??= new Map()).set(id, other);
      continue;
    }
    const erpKey = d.erp_key === null ? undefined : erpKeyOf(d.company, d.kind, d.erp_key);
    if (byErp !== undefined || (erpKey !== undefined && erpKeys.has(erpKey))) {
      // another document with its ERP key is on its way, or may have been issued: never two at once
      const delay = byErp?.to === 'in-doubt' ? ERP_KEY_IN_DOUBT_DELAY_MS : KEY_IN_FLIGHT_DELAY_MS;
      await tx.run('UPDATE documents SET next_attempt_at = ?, updated_at = ? WHERE id = ?', [
        now + delay,
        now,
        id,
      ]);
      result.deferred.push(id);
      continue;
    }
    if (erpKey !== undefined) erpKeys.add(erpKey);
    if (d.key !== null && (d.busy === 1 || keys.has(d.key))) {
      // the same number is on its way in another document: wait for that verdict instead of racing it
      await tx.run('UPDATE documents SET next_attempt_at = ?, updated_at = ? WHERE id = ?', [
        now + KEY_IN_FLIGHT_DELAY_MS,
        now,
        id,
      ]);
      result.deferred.push(id);
      continue;
    }
    if (d.key !== null) keys.add(d.key);
    result.sending.push(id);
  }
  await fence(tx, companies);
  if (result.sending.length > 0) {
    const list = idList(tx, result.sending);
    await tx.run(
      `UPDATE documents SET state = 'sending', attempts = attempts + 1, updated_at = ? WHERE id IN ${list.sql}`,
      [now, list.param],
    );
    // '{"attempt":N}' as SQLite's json_object makes it, in either dialect
    await tx.run(
      `INSERT INTO events(at, file_id, document_id, type, data)
      SELECT ${INT_PARAM}, file_id, id, 'sending', '{"attempt":' || attempts || '}' FROM documents WHERE id IN ${list.sql}`,
      [now, list.param],
    );
  }
  return result;
}

/** EDOC_ISSUED_OTHER_CONTENT for document `id` when what was issued as `acceptedId` differs from it. */
async function otherContentSince(
  tx: SqlExecutor,
  id: number,
  acceptedId: number,
): Promise<ReportProblem | undefined> {
  const issued = await tx.get<IssuedRow>(
    `SELECT ${ISSUED_COLUMNS} FROM documents a JOIN files af ON af.id = a.file_id WHERE a.id = ?`,
    [acceptedId],
  );
  const own = await tx.get<{ content: string | null }>(
    'SELECT content FROM documents WHERE id = ?',
    [id],
  );
  return issued === undefined ? undefined : otherContentProblem(tx, issued, own?.content);
}

export function markSending(
  q: SqlExecutor,
  ids: readonly number[],
  now: number,
  fence: Fence = NO_FENCE,
): Promise<MarkSendingResult> {
  return q.transaction((tx) => markSendingTx(tx, ids, now, fence));
}

/**
 * Takes back `sending` marks whose requests never left (the sender stopped or paused before their
 * turn): back to `pending`, due now, the attempt not counted. Returns the ids that changed.
 */
export function unmarkSending(
  q: SqlExecutor,
  ids: readonly number[],
  now: number,
  fence: Fence = NO_FENCE,
): Promise<number[]> {
  return q.transaction(async (tx) => {
    const done: number[] = [];
    const companies = new Set<string>();
    for (const id of ids) {
      const row = await tx.get<{ file_id: number; company: string }>(
        `UPDATE documents SET state = 'pending', attempts = attempts - 1,
        next_attempt_at = ?, updated_at = ? WHERE id = ? AND state = 'sending' RETURNING file_id, company`,
        [now, now, id],
      );
      if (!row) continue;
      companies.add(row.company);
      await addEvent(tx, now, 'not-sent', row.file_id, id);
      done.push(id);
    }
    await fence(tx, companies);
    return done;
  });
}
