/**
 * Recording a file dropped in an inbox: its row, its report name, the resend request it takes, and
 * what it does to the file recorded at its path before (superseded-files.ts). One transaction per
 * company and kind.
 */
import path from 'node:path';
import { outputNames, outputStem } from '../policy/outbox-names.js';
import { NO_FENCE, type Fence } from './fence.js';
import { json } from './rows.js';
import { bySql } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import { CHANGED_AFTER_SEND } from './types.js';

import type { FileError, FileRow, RecordFileInput, RecordFileResult } from './types.js';

import { addEvent } from './events.js';
import { freeReportName } from './free-report-name.js';
import { openResend, takeResend } from './resend-requests.js';
import { dropIntakeTx, flagChangedTx, releasedAtPath, type HeldBack } from './superseded-files.js';

/** What happened to the documents of a file whose content changed while they were being sent. */
function changedSendText({ documents, held, maybeDelivered }: HeldBack): string {
  if (held === 0) return 'they were sent from the earlier content';
  const sent = documents - held;
  const settled =
    sent > 0
      ? `${sent} of its ${documents} documents were sent or settled from the earlier content (their outcomes stand)`
      : `none of its ${documents} documents was settled from the earlier content`;
  const maybe =
    maybeDelivered === 0
      ? ''
      : ` (${maybeDelivered} of them after an attempt that may have reached the service: they may be issued already)`;
  return `${settled}; ${held} waiting to be sent were held back, not sent from it${maybe}`;
}

/** The new file's row: SQLite picks the id past every id it ever gave (dropped ones too); PostgreSQL's identity never reuses one. */
function insertFileSql(q: SqlExecutor): string {
  const columns = `path, name, report_name, size, sha256, kind, company, state, error, total, duplicate_of, started_at, finished_at,
    outbox_dir, archive`;
  const values = '?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?';
  return bySql(q, {
    sqlite: `INSERT INTO files(id, ${columns}) VALUES (max(coalesce((SELECT max(id) FROM files), 0),
      coalesce((SELECT CAST(value AS INTEGER) FROM kv WHERE key = 'files.lastDroppedId'), 0)) + 1, ${values}) RETURNING id`,
    postgres: `INSERT INTO files(${columns}) VALUES (${values}) RETURNING id`,
  });
}

/** pg_advisory_xact_lock's first key for intakes: "edoc" in ASCII, as pg-migrations.ts's; its second key is a company/kind's hash. */
const INTAKE_LOCK_SPACE = 0x65646f63;
/** pg_advisory_xact_lock's first key for a content's recordings ("edoh"); its second key is the content hash's hash. */
const CONTENT_LOCK_SPACE = 0x65646f68;

export function recordFile(
  q: SqlExecutor,
  input: RecordFileInput,
  fence: Fence = NO_FENCE,
): Promise<RecordFileResult> {
  return q.transaction(async (tx): Promise<RecordFileResult> => {
    // Everything below reads and then writes on the strength of the read (same content? a stale read of
    // the path?). SQLite's BEGIN IMMEDIATE already runs one writer at a time; on PostgreSQL (READ COMMITTED)
    // two intakes of one company and kind, on two connections or two nodes, take turns here instead.
    // One content recorded for two companies at once: the copy recorded second is held
    // (other-company.ts, by the lower id), so ids must come in the order the recordings commit — a
    // recording whose commit stalled after its id was given would otherwise see neither copy held.
    // The content's lock is taken after the company/kind's, by every recording, so no two wait in a cycle.
    if (tx.dialect === 'postgres') {
      await tx.get(
        `SELECT pg_advisory_xact_lock(${INTAKE_LOCK_SPACE}, hashtext(CAST(? AS TEXT)))`,
        [`${input.company}/${input.kind}`],
      );
      await tx.get(
        `SELECT pg_advisory_xact_lock(${CONTENT_LOCK_SPACE}, hashtext(CAST(? AS TEXT)))`,
        [input.sha256],
      );
    }
    await fence(tx, [input.company]);
    const result = await recordFileTx(tx, input);
    // cluster: the node's claim of the dropped file, in the transaction that records it (cluster/file-claims.ts)
    await fence.claimFile?.(tx, input, result.fileId);
    return result;
  });
}

async function recordFileTx(tx: SqlExecutor, input: RecordFileInput): Promise<RecordFileResult> {
  // not moved: unfinished, or (archive = 0) settled where the operator keeps it (`submit` FILE again)
  const leftover = await tx.get<{ id: number; state: FileRow['state'] }>(
    `SELECT id, state FROM files WHERE company = ? AND kind = ?
    AND sha256 = ? AND path = ? AND (archived_path IS NULL OR (archived_path = '' AND archive = 0)) ORDER BY id DESC LIMIT 1`,
    [input.company, input.kind, input.sha256, input.path],
  );
  if (leftover) {
    await addEvent(tx, input.now, 'file-resumed', leftover.id, null, { state: leftover.state });
    return { fileId: leftover.id, outcome: 'resumed', state: leftover.state };
  }
  // a read that failed proves nothing about the content: the same bytes may be dropped again
  const original = await tx.get<{
    id: number;
    name: string;
    report_name: string;
    report_dir: string | null;
    started_at: number;
  }>(
    `SELECT id, name, report_name, report_dir, started_at FROM files WHERE company = ? AND kind = ?
    AND sha256 = ? AND state <> 'failed-read' AND duplicate_of IS NULL ORDER BY id LIMIT 1`,
    [input.company, input.kind, input.sha256],
  );
  // the operator asked for this content to be taken again (edoc-bridge resend): one drop goes through,
  // and like any new file it takes NAME.result.json once the earlier report set has moved aside
  const resend = await openResend(tx, input.company, input.kind, input.sha256);
  // an earlier read of this path that can no longer be read on (its content is gone): nothing of it was sent
  const stale = await tx.all<{ id: number }>(
    `SELECT id FROM files WHERE company = ? AND kind = ? AND path = ? AND state = 'reading'
    AND sha256 <> ?`,
    [input.company, input.kind, input.path, input.sha256],
  );
  for (const s of stale)
    await dropIntakeTx(tx, s.id, input.now, {
      reason: 'content replaced before it was read to the end',
    });
  const released = await releasedAtPath(tx, input);
  let changedAfterSend: RecordFileResult['changedAfterSend'];
  if (released !== undefined) {
    const error = (held: HeldBack): FileError => ({
      code: CHANGED_AFTER_SEND,
      message:
        `${released.name} changed after its documents were released for sending, and the original was not ` +
        `archived: ${changedSendText(held)}. The new content is taken as a new file (documents accepted ` +
        'already are reported duplicate there).',
    });
    const newly = (await flagChangedTx(tx, released.id, error, input.now)) !== undefined;
    changedAfterSend = {
      fileId: released.id,
      reportName: released.report_name,
      newlyFlagged: newly,
    };
  }
  // the new content must not overwrite the report that carries the error
  const reportName = await freeReportName(
    tx,
    input.company,
    input.kind,
    outputStem(input.name),
    input.name,
    original !== undefined && !resend,
    released?.report_name,
  );
  const insert = async (
    state: string,
    error: string | null,
    total: number | null,
    duplicateOf: number | null,
    finishedAt: number | null,
  ): Promise<number> =>
    (await tx.get<{ id: number }>(insertFileSql(tx), [
      input.path,
      input.name,
      reportName,
      input.size,
      input.sha256,
      input.kind,
      input.company,
      state,
      error,
      total,
      duplicateOf,
      input.now,
      finishedAt,
      input.outboxDir ?? null,
      input.archive === undefined ? null : Number(input.archive),
    ]))!.id;
  if (original && !resend) {
    const error: FileError = {
      code: 'EDOC_LEDGER_DUPLICATE_FILE',
      message:
        `The same content was received before as ${original.name} (taken ${new Date(original.started_at).toISOString()}; ` +
        `its report: ${reportPlace(original.report_name, original.name, original.report_dir)}); it is not sent again.`,
    };
    const fileId = await insert('done', json(error), 0, original.id, input.now);
    await addEvent(tx, input.now, 'file-duplicate', fileId, null, {
      duplicateOf: original.id,
      path: input.path,
    });
    return {
      fileId,
      outcome: 'duplicate',
      state: 'done',
      duplicateOfFileId: original.id,
      ...(changedAfterSend === undefined ? {} : { changedAfterSend }),
    };
  }
  const fileId = await insert('reading', null, null, null, null);
  await addEvent(tx, input.now, 'file-recorded', fileId, null, {
    path: input.path,
    size: input.size,
    sha256: input.sha256,
    ...(input.originalName === undefined ? {} : { originalName: input.originalName }),
  });
  if (resend) await takeResend(tx, resend, fileId, input.now);
  return {
    fileId,
    outcome: 'new',
    state: 'reading',
    ...(changedAfterSend === undefined ? {} : { changedAfterSend }),
  };
}

/** `NAME.result.json`, or `archive/…` once the report moved aside, as seen from the outbox folder. */
function reportPlace(reportName: string, name: string, reportDir: string | null): string {
  const result = outputNames(reportName, name).result;
  return reportDir === null ? result : `${path.basename(reportDir)}/${result}`;
}
