import path from 'node:path';
import { outputNames, outputStem } from '../policy/outbox-names.js';
import { NO_FENCE, type Fence } from './fence.js';
import { json, toFileRow } from './rows.js';
import { bySql, greatest } from './sql/dialect.js';
import type { SqlExecutor, SqlParams } from './sql/executor.js';
import type { RawFile } from './rows.js';
import { CHANGED_AFTER_SEND } from './types.js';

export { CHANGED_AFTER_SEND }; // src/daemon/archive-watch.ts imports it from here
import type {
  FileError,
  FileRow,
  RecordFileInput,
  RecordFileResult,
  ReportState,
} from './types.js';

import { addEvent } from './events.js';

export async function getFile(
  q: Pick<SqlExecutor, 'get'>,
  fileId: number,
): Promise<FileRow | undefined> {
  const r = await q.get<RawFile>('SELECT * FROM files WHERE id = ?', [fileId]);
  return r ? toFileRow(r) : undefined;
}

/**
 * The stem of a file's outbox names (`<stem>.result.json`): its own name's stem, unless a file still
 * being worked on uses it (reading, documents not final, or its final report not written yet), or
 * another input name does (NAME.csv and NAME.json), so that two files never share a report; then
 * `NAME (2)`, `NAME (3)`…. The same input name dropped again once the earlier one finished (ERPs reuse
 * daily names) gets the same stem back: the earlier report set then moves to the archive before the
 * new one is written (src/report/move-aside.ts). `fresh` (a duplicate drop, whose report must never
 * take the place of the outcome it duplicates) takes only a stem no file's report holds.
 */
async function freeReportName(
  q: SqlExecutor,
  company: string,
  kind: string,
  stem: string,
  name: string,
  fresh: boolean,
  avoid?: string,
): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? stem : `${stem} (${n})`;
    const taken = fresh
      ? await q.get(
          'SELECT 1 FROM files WHERE company = ? AND kind = ? AND report_name = ? AND report_dir IS NULL LIMIT 1',
          [company, kind, candidate],
        )
      : await q.get(
          `SELECT 1 FROM files WHERE company = ? AND kind = ? AND report_name = ? AND report_dir IS NULL
        AND (state IN ('reading','open') OR report_state <> 'final' OR name <> ?) LIMIT 1`,
          [company, kind, candidate, name],
        );
    if (candidate !== avoid && !taken) return candidate;
  }
}

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
async function takeResend(
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

/**
 * Deletes an intake of which nothing was sent: the file is still `reading`, so its documents were
 * never due (insertDocuments holds them back). Duplicates recorded against it lose their link (the
 * content they named was never processed). Returns the file's company, or undefined when it is not `reading`.
 */
async function dropIntakeTx(
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
  await tx.run(
    'DELETE FROM document_bodies WHERE id IN (SELECT id FROM documents WHERE file_id = ?)',
    [fileId],
  );
  const docs = (await tx.run('DELETE FROM documents WHERE file_id = ?', [fileId])).changes;
  await tx.run('DELETE FROM file_counts WHERE file_id = ?', [fileId]);
  await tx.run('UPDATE files SET duplicate_of = NULL WHERE duplicate_of = ?', [fileId]);
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

export function dropIntake(
  q: SqlExecutor,
  fileId: number,
  now: number,
  data: Record<string, unknown>,
  fence: Fence = NO_FENCE,
): Promise<boolean> {
  return q.transaction(async (tx) => {
    const company = await dropIntakeTx(tx, fileId, now, data);
    if (company === undefined) return false;
    await fence(tx, [company]);
    return true;
  });
}

/** flagChangedAfterSend inside a transaction: the company of the file flagged, or undefined. */
async function flagChangedTx(
  tx: SqlExecutor,
  fileId: number,
  error: FileError,
  now: number,
): Promise<string | undefined> {
  const row = await tx.get<{ error: string | null; company: string }>(
    'SELECT error, company FROM files WHERE id = ?',
    [fileId],
  );
  if (row === undefined || (row.error !== null && row.error.includes(CHANGED_AFTER_SEND)))
    return undefined;
  await tx.run(`UPDATE files SET error = ?, report_state = 'none' WHERE id = ?`, [
    json(error),
    fileId,
  ]);
  const held = (
    await tx.run(
      `UPDATE documents SET state = 'invalid', next_attempt_at = NULL, errors = ?, updated_at = ?
    WHERE file_id = ? AND state = 'pending'`,
      [
        JSON.stringify([
          {
            code: CHANGED_AFTER_SEND,
            message:
              'Not sent: the file changed after sending began; its new content is taken as a new file.',
          },
        ]),
        now,
        fileId,
      ],
    )
  ).changes;
  await addEvent(tx, now, 'file-changed-after-send', fileId, null, { ...error, heldBack: held });
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
async function releasedAtPath(
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

export function recordFile(
  q: SqlExecutor,
  input: RecordFileInput,
  fence: Fence = NO_FENCE,
): Promise<RecordFileResult> {
  return q.transaction(async (tx): Promise<RecordFileResult> => {
    // Everything below reads and then writes on the strength of the read (same content? a stale read of
    // the path?). SQLite's BEGIN IMMEDIATE already runs one writer at a time; on PostgreSQL (READ COMMITTED)
    // two intakes of one company and kind, on two connections or two nodes, take turns here instead.
    if (tx.dialect === 'postgres') {
      await tx.get(
        `SELECT pg_advisory_xact_lock(${INTAKE_LOCK_SPACE}, hashtext(CAST(? AS TEXT)))`,
        [`${input.company}/${input.kind}`],
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
    const error: FileError = {
      code: CHANGED_AFTER_SEND,
      message:
        `${released.name} changed after its documents were ` +
        'released for sending: they were sent from the earlier content, and the original was not archived. The new ' +
        `content is taken as a new file (documents accepted already are reported duplicate there).`,
    };
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

export interface ReadDetails {
  format: string;
  encoding?: string | null;
  header?: string | null;
}

/** One UPDATE of a file's row, fenced by the file's company when there is a fence. */
async function updateFile(
  q: SqlExecutor,
  fence: Fence,
  sql: string,
  params: readonly unknown[],
): Promise<void> {
  if (fence === NO_FENCE) {
    await q.run(sql, params);
    return;
  }
  await q.transaction(async (tx) => {
    const row = await tx.get<{ company: string }>(`${sql} RETURNING company`, params);
    if (row !== undefined) await fence(tx, [row.company]);
  });
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
 * are all final, and its pending documents are released (due now) in the same transaction.
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
    if (details !== undefined) await tx.run(READ_DETAILS_SQL, readDetailsParams(fileId, details));
    const released = (
      await tx.run(
        `UPDATE documents SET next_attempt_at = ? WHERE file_id = ? AND state = 'pending'
      AND next_attempt_at IS NULL`,
        [now, fileId],
      )
    ).changes;
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
    const file = await tx.get<{ company: string }>(
      `UPDATE files SET state = 'failed-read', error = ?, finished_at = ? WHERE id = ?
      RETURNING company`,
      [json(error), now, fileId],
    );
    if (file !== undefined) await fence(tx, [file.company]);
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
    return held;
  });
}

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
  // fence the write stays, checked against the lease as before
  if (fence === NO_FENCE)
    return updateFile(
      q,
      fence,
      'UPDATE files SET report_state = ? WHERE id = ? AND report_state <> ?',
      [state, fileId, state],
    );
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

/** `AND company = ?` with its parameter when the read is scoped to one company (a cluster node's take-over). */
function ofCompany(company: string | undefined): { sql: string; params: string[] } {
  return company === undefined
    ? { sql: '', params: [] }
    : { sql: ' AND company = ?', params: [company] };
}

/** Files still being read or with documents not final, oldest first; of one company when given. */
export async function openFiles(q: SqlExecutor, company?: string): Promise<FileRow[]> {
  const scope = ofCompany(company);
  return (
    await q.all<RawFile>(
      `SELECT * FROM files WHERE state IN ('reading','open')${scope.sql} ORDER BY id`,
      scope.params,
    )
  ).map(toFileRow);
}

/** Finished files whose final report or archive move may not have happened (crash in between); of one company when given. */
export async function filesToSettle(q: SqlExecutor, company?: string): Promise<FileRow[]> {
  // only the partial index's own condition in SQL, so the planner cannot prefer files_state ('done' is most files)
  const scope = ofCompany(company);
  return (
    await q.all<RawFile>(
      `SELECT * FROM files WHERE (report_state <> 'final' OR archived_path IS NULL)${scope.sql} ORDER BY id`,
      scope.params,
    )
  )
    .filter((r) => r.state === 'done' || r.state === 'failed-read')
    .map(toFileRow);
}

/**
 * Files sent and archived since `since` (finished then or later) whose archived copy is still where it
 * was put and not yet flagged as changed: the daemon watches them again after a restart (archive watch).
 */
export async function recentlyArchived(q: SqlExecutor, since: number): Promise<FileRow[]> {
  return (
    await q.all<RawFile>(
      `SELECT * FROM files WHERE state = 'done' AND duplicate_of IS NULL AND finished_at >= ?
    AND archived_path IS NOT NULL AND archived_path <> '' ORDER BY id`,
      [since],
    )
  )
    .map(toFileRow)
    .filter((f) => f.error === null || f.error.code !== CHANGED_AFTER_SEND);
}
