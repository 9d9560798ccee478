/**
 * Sending and its verdicts: the `sending` mark (intent, committed before a request leaves), its
 * withdrawal, the verdicts, and the recovery of marks a stopped process left. Each is one transaction,
 * fenced by the companies of the documents it changed (a cluster node that lost a company's lease
 * commits nothing for it).
 */
import { KEY_IN_FLIGHT_DELAY_MS, sendingAtStart } from './due-documents.js';
import { NO_FENCE, type Fence } from './fence.js';
import { addEvent, addEvents, type LedgerEvent } from './events.js';
import { json } from './rows.js';
import {
  ERP_KEY_IN_DOUBT_DELAY_MS,
  erpKeyOf,
  erpKeyStates,
  settleErpKeyDuplicate,
} from './erp-keys.js';
import { greatest, idList, INT_PARAM, valuesTable, type ValueColumn } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import { ISSUED_COLUMNS, otherContentProblem, type IssuedRow } from './issued-content.js';
import type { MarkSendingResult, OutcomeRecord, ReportProblem } from './types.js';

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

/**
 * Commits outcomes of sent documents (final, or back to `pending` for a retry) in one transaction.
 * Only documents still `sending` change; returns the ids that did, and the files they belong to.
 */
export async function recordOutcomesTx(
  tx: SqlExecutor,
  records: readonly OutcomeRecord[],
  now: number,
  fence: Fence,
): Promise<{ applied: number[]; fileIds: number[] }> {
  // maybe_delivered only ever goes up (migration 4): a later answer does not undo an earlier lost one.
  const update = `UPDATE documents SET state = ?, next_attempt_at = ?, last_outcome = ?, result_code = ?, http_status = ?, errors = ?,
    warnings = ?, response = ?, key = coalesce(key, ?), updated_at = ?, maybe_delivered = ${greatest(tx, 'maybe_delivered', '?')},
    doubt = ? WHERE id = ? AND state = 'sending' RETURNING file_id, company`;
  const applied: number[] = [];
  const files = new Set<number>();
  const companies = new Set<string>();
  const events: LedgerEvent[] = [];
  for (const r of records)
    if (r.state === 'pending' && r.nextAttemptAt === undefined)
      throw new Error('a retry needs nextAttemptAt');
  const values = records.map((r) => [
    r.state,
    r.state === 'pending' ? r.nextAttemptAt! : null,
    json(r.outcome),
    r.resultCode ?? null,
    r.httpStatus ?? null,
    json(r.errors && r.errors.length > 0 ? r.errors : null),
    json(r.warnings && r.warnings.length > 0 ? r.warnings : null),
    r.responseText ?? json(r.response),
    r.key ?? null,
    now,
    r.maybeDelivered === true ? 1 : 0,
    r.state === 'in-doubt' ? (r.doubt ?? 'no-answer') : null,
    r.id,
  ]);
  // The batch in one statement, and its events in another (a statement per verdict was most of the commit's
  // cost); a document twice in one batch (never from the sender) goes row by row, in order, as does a single one
  const batched =
    records.length > 1 && new Set(records.map((r) => r.id)).size === records.length
      ? new Map((await verdictsAtOnce(tx, values)).map((r) => [r.id, r]))
      : undefined;
  for (const [i, r] of records.entries()) {
    const row =
      batched !== undefined
        ? batched.get(r.id)
        : await tx.get<{ file_id: number; company: string }>(update, values[i]);
    if (!row) continue;
    applied.push(r.id);
    files.add(row.file_id);
    companies.add(row.company);
    if (r.maybeDelivered === true)
      events.push({
        at: now,
        type: 'maybe-delivered',
        fileId: row.file_id,
        documentId: r.id,
        data: { httpStatus: r.httpStatus },
      });
    events.push({
      at: now,
      type: r.state === 'pending' ? 'retry-scheduled' : r.state,
      fileId: row.file_id,
      documentId: r.id,
      data: {
        resultCode: r.resultCode,
        httpStatus: r.httpStatus,
        nextAttemptAt: r.nextAttemptAt,
        note: r.note,
        ...(r.key === undefined ? {} : { assignedKey: r.key }),
      },
    });
  }
  await addEvents(tx, events);
  await fence(tx, companies);
  return { applied, fileIds: [...files] };
}

/** The verdict table's columns, in the order of recordOutcomesTx's `values` (named apart from the documents' columns). */
const VERDICT_COLUMNS: readonly ValueColumn[] = [
  ['v_state', 'TEXT'],
  ['v_next', 'BIGINT'],
  ['v_outcome', 'TEXT'],
  ['v_rc', 'TEXT'],
  ['v_hs', 'BIGINT'],
  ['v_err', 'TEXT'],
  ['v_warn', 'TEXT'],
  ['v_resp', 'TEXT'],
  ['v_key', 'TEXT'],
  ['v_now', 'BIGINT'],
  ['v_maybe', 'SMALLINT'],
  ['v_doubt', 'TEXT'],
  ['v_id', 'BIGINT'],
];

/** Every verdict of a batch (distinct documents) in ONE UPDATE; the rows that were still `sending`, changed. */
function verdictsAtOnce(
  tx: SqlExecutor,
  values: readonly (readonly unknown[])[],
): Promise<{ id: number; file_id: number; company: string }[]> {
  const v = valuesTable(tx, VERDICT_COLUMNS, values);
  return tx.all(
    `UPDATE documents AS d SET state = v.v_state, next_attempt_at = v.v_next, last_outcome = v.v_outcome,
    result_code = v.v_rc, http_status = v.v_hs, errors = v.v_err, warnings = v.v_warn, response = v.v_resp,
    key = coalesce(d.key, v.v_key), updated_at = v.v_now, maybe_delivered = ${greatest(tx, 'd.maybe_delivered', 'v.v_maybe')}, doubt = v.v_doubt
    FROM ${v.sql} AS v WHERE d.id = v.v_id AND d.state = 'sending' RETURNING id, file_id, company`,
    v.params,
  );
}

export function recordOutcomes(
  q: SqlExecutor,
  records: readonly OutcomeRecord[],
  now: number,
  fence: Fence = NO_FENCE,
): Promise<{ applied: number[]; fileIds: number[] }> {
  return q.transaction((tx) => recordOutcomesTx(tx, records, now, fence));
}

/**
 * Crash recovery for `sending` documents (of one company when given: a cluster node taking it over):
 * `resend` ids go back to `pending` (due now) — only those with their own number, whose repeat the
 * service rejects as a duplicate; the rest become `in-doubt`.
 */
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
      'The process stopped after the request was sent; the document has no own number.',
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
