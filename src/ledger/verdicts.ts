/**
 * The verdicts of sent documents: final, or back to `pending` for a retry, committed in one
 * transaction fenced by the documents' companies. Only documents still `sending` change.
 */
import { NO_FENCE, type Fence } from './fence.js';
import { addEvents, type LedgerEvent } from './events.js';
import { json } from './rows.js';
import { greatest, valuesTable, type ValueColumn } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import type { OutcomeRecord } from './types.js';

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
    warnings = ?, response = ?, updated_at = ?, maybe_delivered = ${greatest(tx, 'maybe_delivered', '?')},
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
    now,
    r.maybeDelivered === true ? 1 : 0,
    r.state === 'in-doubt' ? (r.doubt ?? 'no-answer') : null,
    r.id,
  ]);
  // The batch in one statement, and its events in another (a statement per verdict was most of the commit's
  // cost); a document twice in one batch (never from the sender) goes row by row, in order, as does a single one
  const keyed = records.filter((r) => r.key !== undefined);
  const atOnce = records.length > 1 && new Set(records.map((r) => r.id)).size === records.length;
  if (atOnce && keyed.length > 0) await assignKeys(tx, keyed);
  const batched = atOnce
    ? new Map((await verdictsAtOnce(tx, values)).map((r) => [r.id, r]))
    : undefined;
  for (const [i, r] of records.entries()) {
    if (!atOnce && r.key !== undefined) await assignKeys(tx, [r]);
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
    updated_at = v.v_now, maybe_delivered = ${greatest(tx, 'd.maybe_delivered', 'v.v_maybe')}, doubt = v.v_doubt
    FROM ${v.sql} AS v WHERE d.id = v.v_id AND d.state = 'sending' RETURNING id, file_id, company`,
    v.params,
  );
}

const KEY_COLUMNS: readonly ValueColumn[] = [
  ['v_key', 'TEXT'],
  ['v_id', 'BIGINT'],
];

/**
 * The key a verdict gives a document that has none (the number the service assigned), written before
 * the verdict itself and to documents still `sending` only — as the verdict's own `coalesce(key, ?)`
 * would. A statement of its own, for the few that have one: with `key` in the verdict's SET, SQLite
 * rewrites every verdict's entry of the key index (a page written per verdict at each commit) even
 * when the key stays as it was.
 */
async function assignKeys(tx: SqlExecutor, records: readonly OutcomeRecord[]): Promise<void> {
  const v = valuesTable(
    tx,
    KEY_COLUMNS,
    records.map((r) => [r.key, r.id]),
  );
  await tx.run(
    `UPDATE documents AS d SET key = v.v_key FROM ${v.sql} AS v
    WHERE d.id = v.v_id AND d.state = 'sending' AND d.key IS NULL`,
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
