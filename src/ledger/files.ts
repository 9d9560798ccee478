import path from 'node:path';
import type Database from 'better-sqlite3';
import { outputNames, outputStem } from '../policy/outbox-names.js';
import { json, stmt, toFileRow } from './rows.js';
import type { RawFile } from './rows.js';
import { CHANGED_AFTER_SEND } from './types.js';

export { CHANGED_AFTER_SEND }; // src/daemon/archive-watch.ts imports it from here
import type { FileError, FileRow, RecordFileInput, RecordFileResult, ReportState } from './types.js';

export function addEvent(db: Database.Database, at: number, type: string, fileId: number | null,
  documentId: number | null, data?: unknown): void {
  stmt(db, 'INSERT INTO events(at, file_id, document_id, type, data) VALUES (?, ?, ?, ?, ?)')
    .run(at, fileId, documentId, type, json(data));
}

export function getFile(db: Database.Database, fileId: number): FileRow | undefined {
  const r = stmt(db, 'SELECT * FROM files WHERE id = ?').get(fileId) as RawFile | undefined;
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
function freeReportName(db: Database.Database, company: string, kind: string, stem: string, name: string, fresh: boolean,
  avoid?: string): string {
  const held = stmt(db, 'SELECT 1 FROM files WHERE company = ? AND kind = ? AND report_name = ? AND report_dir IS NULL LIMIT 1');
  const busy = stmt(db, `SELECT 1 FROM files WHERE company = ? AND kind = ? AND report_name = ? AND report_dir IS NULL
    AND (state IN ('reading','open') OR report_state <> 'final' OR name <> ?) LIMIT 1`);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? stem : `${stem} (${n})`;
    const taken = fresh ? held.get(company, kind, candidate) : busy.get(company, kind, candidate, name);
    if (candidate !== avoid && !taken) return candidate;
  }
}

export interface ResendRequest {
  id: number;
  fileId: number;
  requestedAt: number;
}

/** Open (not yet taken) request for this content, if any. */
export function openResend(db: Database.Database, company: string, kind: string, sha256: string): ResendRequest | undefined {
  const r = stmt(db, `SELECT id, file_id, requested_at FROM resend_requests WHERE company = ? AND kind = ? AND sha256 = ?
    AND taken_by IS NULL ORDER BY id LIMIT 1`).get(company, kind, sha256) as { id: number; file_id: number; requested_at: number } | undefined;
  return r ? { id: r.id, fileId: r.file_id, requestedAt: r.requested_at } : undefined;
}

/** Inside recordFile's transaction: the new file `fileId` takes the open request for its content. */
function takeResend(db: Database.Database, request: ResendRequest, fileId: number, now: number): void {
  stmt(db, 'UPDATE resend_requests SET taken_by = ?, taken_at = ? WHERE id = ? AND taken_by IS NULL').run(fileId, now, request.id);
  addEvent(db, now, 'file-resend', fileId, null, { request: request.id, resendOf: request.fileId });
}


/**
 * Deletes an intake of which nothing was sent: the file is still `reading`, so its documents were
 * never due (insertDocuments holds them back). Duplicates recorded against it lose their link (the
 * content they named was never processed). Returns false when the file is not `reading`.
 */
function dropIntakeTx(db: Database.Database, fileId: number, now: number, data: Record<string, unknown>): boolean {
  const row = stmt(db, `SELECT state FROM files WHERE id = ?`).get(fileId) as { state: string } | undefined;
  if (row?.state !== 'reading') return false;
  stmt(db, 'DELETE FROM document_bodies WHERE id IN (SELECT id FROM documents WHERE file_id = ?)').run(fileId);
  const docs = stmt(db, 'DELETE FROM documents WHERE file_id = ?').run(fileId).changes;
  stmt(db, 'DELETE FROM file_counts WHERE file_id = ?').run(fileId);
  stmt(db, 'UPDATE files SET duplicate_of = NULL WHERE duplicate_of = ?').run(fileId);
  stmt(db, 'DELETE FROM files WHERE id = ?').run(fileId);
  // SQLite would hand the highest id out again: remember it, so events and logs never name two files by one id
  stmt(db, `INSERT INTO kv(key, value, updated_at) VALUES ('files.lastDroppedId', ?, ?)
    ON CONFLICT(key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER)), updated_at = excluded.updated_at`)
    .run(String(fileId), now);
  addEvent(db, now, 'file-dropped', fileId, null, { ...data, documents: docs });
  return true;
}

export function dropIntake(db: Database.Database, fileId: number, now: number, data: Record<string, unknown>): boolean {
  return db.transaction(() => dropIntakeTx(db, fileId, now, data)).immediate();
}

/**
 * The original of a file whose documents were released (sending began) changed: a file-level error on
 * it, and its report is written again. Documents already sent keep their outcomes; those not sent yet
 * are not sent from content that is no longer the file's (stored `invalid`, like failRead): the new
 * content sends them. Returns false when it carried that error already.
 */
export function flagChangedAfterSend(db: Database.Database, fileId: number, error: FileError, now: number): boolean {
  return db.transaction(() => {
    const row = stmt(db, 'SELECT error FROM files WHERE id = ?').get(fileId) as { error: string | null } | undefined;
    if (row === undefined || (row.error !== null && row.error.includes(CHANGED_AFTER_SEND))) return false;
    stmt(db, `UPDATE files SET error = ?, report_state = 'none' WHERE id = ?`).run(json(error), fileId);
    const held = stmt(db, `UPDATE documents SET state = 'invalid', next_attempt_at = NULL, errors = ?, updated_at = ?
      WHERE file_id = ? AND state = 'pending'`).run(JSON.stringify([{ code: CHANGED_AFTER_SEND,
      message: 'Not sent: the file changed after sending began; its new content is taken as a new file.' }]), now, fileId).changes;
    addEvent(db, now, 'file-changed-after-send', fileId, null, { ...error, heldBack: held });
    return true;
  }).immediate();
}

/**
 * The file last recorded from this path whose content is not `sha256`, when its documents were released
 * and its original is still ours (not archived): new content there means the file changed after
 * sending began. `edoc-bridge submit` files (never archived) count only while still open.
 */
function releasedAtPath(db: Database.Database, input: RecordFileInput): { id: number; name: string; report_name: string;
  error: string | null } | undefined {
  const last = stmt(db, `SELECT id, name, report_name, state, sha256, error, archive, archived_path FROM files
    WHERE company = ? AND kind = ? AND path = ? ORDER BY id DESC LIMIT 1`).get(input.company, input.kind, input.path) as
    { id: number; name: string; report_name: string; state: string; sha256: string; error: string | null;
      archive: number | null; archived_path: string | null } | undefined;
  if (last === undefined || last.sha256 === input.sha256) return undefined;
  const flagged = last.error !== null && last.error.includes(CHANGED_AFTER_SEND);
  const ours = last.archived_path === null && (last.state === 'open' || (last.state === 'done' && last.archive === 1));
  return flagged || ours ? last : undefined;
}

export function recordFile(db: Database.Database, input: RecordFileInput): RecordFileResult {
  return db.transaction((): RecordFileResult => {
    // not moved: unfinished, or (archive = 0) settled where the operator keeps it (`submit` FILE again)
    const leftover = stmt(db, `SELECT id, state FROM files WHERE company = ? AND kind = ? AND sha256 = ?
      AND path = ? AND (archived_path IS NULL OR (archived_path = '' AND archive = 0)) ORDER BY id DESC LIMIT 1`)
      .get(input.company, input.kind, input.sha256, input.path) as { id: number; state: FileRow['state'] } | undefined;
    if (leftover) {
      addEvent(db, input.now, 'file-resumed', leftover.id, null, { state: leftover.state });
      return { fileId: leftover.id, outcome: 'resumed', state: leftover.state };
    }
    // a read that failed proves nothing about the content: the same bytes may be dropped again
    const original = stmt(db, `SELECT id, name, report_name, report_dir, started_at FROM files WHERE company = ? AND kind = ?
      AND sha256 = ? AND state <> 'failed-read' AND duplicate_of IS NULL ORDER BY id LIMIT 1`)
      .get(input.company, input.kind, input.sha256) as
      { id: number; name: string; report_name: string; report_dir: string | null; started_at: number } | undefined;
    // the operator asked for this content to be taken again (edoc-bridge resend): one drop goes through,
    // and like any new file it takes NAME.result.json once the earlier report set has moved aside
    const resend = openResend(db, input.company, input.kind, input.sha256);
    // an earlier read of this path that can no longer be read on (its content is gone): nothing of it was sent
    const stale = stmt(db, `SELECT id FROM files WHERE company = ? AND kind = ? AND path = ? AND state = 'reading'
      AND sha256 <> ?`).all(input.company, input.kind, input.path, input.sha256) as { id: number }[];
    for (const s of stale) dropIntakeTx(db, s.id, input.now, { reason: 'content replaced before it was read to the end' });
    const released = releasedAtPath(db, input);
    let changedAfterSend: RecordFileResult['changedAfterSend'];
    if (released !== undefined) {
      const error: FileError = { code: CHANGED_AFTER_SEND, message: `${released.name} changed after its documents were `
        + 'released for sending: they were sent from the earlier content, and the original was not archived. The new '
        + `content is taken as a new file (documents accepted already are reported duplicate there).` };
      const newly = flagChangedAfterSend(db, released.id, error, input.now);
      changedAfterSend = { fileId: released.id, reportName: released.report_name, newlyFlagged: newly };
    }
    // the new content must not overwrite the report that carries the error
    const reportName = freeReportName(db, input.company, input.kind, outputStem(input.name), input.name,
      original !== undefined && !resend, released?.report_name);
    const { originalName: _originalName, ...row } = input;
    const insert = stmt(db, `INSERT INTO files(id, path, name, report_name, size, sha256, kind, company, state, error,
      total, duplicate_of, started_at, finished_at, outbox_dir, archive) VALUES (
      max(coalesce((SELECT max(id) FROM files), 0),
        coalesce((SELECT CAST(value AS INTEGER) FROM kv WHERE key = 'files.lastDroppedId'), 0)) + 1,
      @path, @name, @reportName, @size, @sha256,
      @kind, @company, @state, @error, @total, @duplicateOf, @now, @finishedAt, @outboxDir, @archive)`);
    const where = { outboxDir: input.outboxDir ?? null, archive: input.archive === undefined ? null : Number(input.archive) };
    if (original && !resend) {
      const error: FileError = {
        code: 'EDOC_LEDGER_DUPLICATE_FILE',
        message: `The same content was received before as ${original.name} (taken ${new Date(original.started_at).toISOString()}; `
          + `its report: ${reportPlace(original.report_name, original.name, original.report_dir)}); it is not sent again.`,
      };
      const fileId = Number(insert.run({ ...row, ...where, reportName, state: 'done', error: json(error), total: 0,
        duplicateOf: original.id, finishedAt: input.now }).lastInsertRowid);
      addEvent(db, input.now, 'file-duplicate', fileId, null, { duplicateOf: original.id, path: input.path });
      return { fileId, outcome: 'duplicate', state: 'done', duplicateOfFileId: original.id,
        ...(changedAfterSend === undefined ? {} : { changedAfterSend }) };
    }
    const fileId = Number(insert.run({ ...row, ...where, reportName, state: 'reading', error: null, total: null,
      duplicateOf: null, finishedAt: null }).lastInsertRowid);
    addEvent(db, input.now, 'file-recorded', fileId, null, { path: input.path, size: input.size, sha256: input.sha256,
      ...(input.originalName === undefined ? {} : { originalName: input.originalName }) });
    if (resend) takeResend(db, resend, fileId, input.now);
    return { fileId, outcome: 'new', state: 'reading', ...(changedAfterSend === undefined ? {} : { changedAfterSend }) };
  }).immediate();
}

/** `NAME.result.json`, or `archive/…` once the report moved aside, as seen from the outbox folder. */
function reportPlace(reportName: string, name: string, reportDir: string | null): string {
  const result = outputNames(reportName, name).result;
  return reportDir === null ? result : `${path.basename(reportDir)}/${result}`;
}

/**
 * Other files whose reports hold the outbox names `reportName` in the company's kind (not moved
 * aside), recorded before `fileId`, newest first: a file about to write its first report under
 * those names moves theirs aside first.
 */
export function reportHolders(db: Database.Database, fileId: number): FileRow[] {
  const file = getFile(db, fileId);
  if (!file || file.reportDir !== null) return [];
  return (stmt(db, `SELECT * FROM files WHERE company = ? AND kind = ? AND report_name = ? AND report_dir IS NULL AND id < ?
    ORDER BY id DESC`).all(file.company, file.kind, file.reportName, fileId) as RawFile[]).map(toFileRow);
}

/** The stem is taken in `dir` by the moved-aside reports of a file other than `fileId`. */
export function reportPlaceTaken(db: Database.Database, dir: string, reportName: string, fileId: number): boolean {
  return stmt(db, 'SELECT 1 FROM files WHERE report_dir = ? AND report_name = ? AND id <> ? LIMIT 1')
    .get(dir, reportName, fileId) !== undefined;
}

/** The file's reports now live in `dir` as `reportName` (moved aside: a later file took its names). */
export function relocateReport(db: Database.Database, fileId: number, dir: string, reportName: string, now: number): void {
  db.transaction(() => {
    const from = stmt(db, 'SELECT report_name, outbox_dir FROM files WHERE id = ?').get(fileId) as
      { report_name: string; outbox_dir: string | null } | undefined;
    stmt(db, 'UPDATE files SET report_dir = ?, report_name = ? WHERE id = ?').run(dir, reportName, fileId);
    addEvent(db, now, 'report-moved', fileId, null, { from: from?.report_name, to: path.join(dir, reportName) });
  }).immediate();
}

export interface ReadDetails {
  format: string;
  encoding?: string | null;
  header?: string | null;
}

/** Format facts known as soon as the reader opened the file (the retry file needs them). */
export function setReadDetails(db: Database.Database, fileId: number, d: ReadDetails): void {
  stmt(db, 'UPDATE files SET format = ?, encoding = ?, header = ? WHERE id = ?')
    .run(d.format, d.encoding ?? null, d.header ?? null, fileId);
}

/**
 * Every document of the file is in the ledger and the file was found unchanged: it is `open` until they
 * are all final, and its pending documents are released (due now) in the same transaction.
 */
export function finishReading(db: Database.Database, fileId: number, now: number): void {
  db.transaction(() => {
    const total = (stmt(db, 'SELECT coalesce(sum(n), 0) AS n FROM file_counts WHERE file_id = ?').get(fileId) as { n: number }).n;
    if (stmt(db, `UPDATE files SET state = 'open', total = ? WHERE id = ? AND state = 'reading'`).run(total, fileId).changes === 0) return;
    const released = stmt(db, `UPDATE documents SET next_attempt_at = ? WHERE file_id = ? AND state = 'pending'
      AND next_attempt_at IS NULL`).run(now, fileId).changes;
    addEvent(db, now, 'file-read', fileId, null, { total, released });
  }).immediate();
}

/**
 * The file could not be read to the end: a file-level error. Documents read before the failure that
 * have not been sent are not sent (stored `invalid`, so they land in the retry file): the user fixes
 * and drops the file again, and a half-sent broken file would otherwise issue twice. Documents already
 * sent finish normally. Returns how many were held back.
 */
export function failRead(db: Database.Database, fileId: number, error: FileError, now: number): number {
  return db.transaction(() => {
    stmt(db, `UPDATE files SET state = 'failed-read', error = ?, finished_at = ? WHERE id = ?`).run(json(error), now, fileId);
    const held = stmt(db, `UPDATE documents SET state = 'invalid', next_attempt_at = NULL, errors = ?, updated_at = ?
      WHERE file_id = ? AND state = 'pending'`).run(JSON.stringify([{ code: error.code,
      message: `Not sent: the file could not be read to the end (${error.message}).` }]), now, fileId).changes;
    addEvent(db, now, 'file-failed-read', fileId, null, { ...error, heldBack: held });
    return held;
  }).immediate();
}

/**
 * Every document is final: the file is done. Returns false when it was not open or a document of it
 * is still pending or sending — checked here, in the same statement as the change, so a re-queue
 * committed after the caller read the file's progress is never overwritten (the ledger port's
 * atomicity rule, port.ts).
 */
export function finishFile(db: Database.Database, fileId: number, now: number): boolean {
  return db.transaction(() => {
    const changed = stmt(db, `UPDATE files SET state = 'done', finished_at = ? WHERE id = ? AND state = 'open'
      AND NOT EXISTS (SELECT 1 FROM file_counts WHERE file_id = files.id AND state IN ('pending','sending') AND n > 0)`)
      .run(now, fileId).changes === 1;
    if (changed) addEvent(db, now, 'file-done', fileId, null);
    return changed;
  }).immediate();
}

export function markReported(db: Database.Database, fileId: number, state: ReportState): void {
  stmt(db, 'UPDATE files SET report_state = ? WHERE id = ?').run(state, fileId);
}

export function markArchived(db: Database.Database, fileId: number, archivedPath: string, now: number): void {
  db.transaction(() => {
    stmt(db, 'UPDATE files SET archived_path = ? WHERE id = ?').run(archivedPath, fileId);
    addEvent(db, now, 'file-archived', fileId, null, { archivedPath });
  }).immediate();
}

/** Files still being read or with documents not final, oldest first. */
export function openFiles(db: Database.Database): FileRow[] {
  return (stmt(db, `SELECT * FROM files WHERE state IN ('reading','open') ORDER BY id`).all() as RawFile[]).map(toFileRow);
}

/** Finished files whose final report or archive move may not have happened (crash in between). */
export function filesToSettle(db: Database.Database): FileRow[] {
  // only the partial index's own condition in SQL, so the planner cannot prefer files_state ('done' is most files)
  return (stmt(db, `SELECT * FROM files WHERE report_state <> 'final' OR archived_path IS NULL ORDER BY id`)
    .all() as RawFile[]).filter((r) => r.state === 'done' || r.state === 'failed-read').map(toFileRow);
}

/**
 * Files sent and archived since `since` (finished then or later) whose archived copy is still where it
 * was put and not yet flagged as changed: the daemon watches them again after a restart (archive watch).
 */
export function recentlyArchived(db: Database.Database, since: number): FileRow[] {
  return (stmt(db, `SELECT * FROM files WHERE state = 'done' AND duplicate_of IS NULL AND finished_at >= ?
    AND archived_path IS NOT NULL AND archived_path <> '' ORDER BY id`).all(since) as RawFile[]).map(toFileRow)
    .filter((f) => f.error === null || f.error.code !== CHANGED_AFTER_SEND);
}
