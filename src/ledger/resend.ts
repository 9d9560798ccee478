/**
 * Taking the same content again (`edoc-bridge resend`). The content-hash rule refuses a second drop of
 * a file; a resend request is the operator's word that exactly one more drop of that content is to be
 * read. What keeps a resend exactly-once is per document: a document whose earlier copy (same content,
 * same place in the file, same source text) was accepted is not sent again, whether or not it carries
 * its own number; one whose earlier copy is not final yet (pending, sending, failed, in-doubt) is held,
 * because that copy may still be sent or released. Only copies that were rejected or invalid go again.
 * The same rule covers the new content of a file that changed after its documents were sent.
 */
import { addEvent } from './events.js';
import { getFile } from './files.js';
import { openResend } from './resend-requests.js';
import type { ResendRequest } from './resend-requests.js';
import { endsWithTail, idList, joinedGroup } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import type { DocumentState, FileRow } from './types.js';

/** Records that the next drop of `fileId`'s content is to be taken again; an open request for it is reused. */
export function requestResend(
  q: SqlExecutor,
  fileId: number,
  now: number,
): Promise<{ request: ResendRequest; reused: boolean }> {
  return q.transaction(async (tx) => {
    const file = await getFile(tx, fileId);
    if (!file) throw new Error(`requestResend: no file ${fileId}`);
    const open = await openResend(tx, file.company, file.kind, file.sha256);
    if (open) return { request: open, reused: true };
    const id = (await tx.get<{ id: number }>(
      `INSERT INTO resend_requests(file_id, company, kind, sha256, requested_at)
      VALUES (?, ?, ?, ?, ?) RETURNING id`,
      [fileId, file.company, file.kind, file.sha256, now],
    ))!.id;
    await addEvent(tx, now, 'resend-requested', fileId, null, { request: id });
    return { request: { id, fileId, requestedAt: now }, reused: false };
  });
}

/** Withdraws an open request (its copy into the inbox failed). */
export function cancelResend(q: SqlExecutor, requestId: number, now: number): Promise<void> {
  return q.transaction(async (tx) => {
    const r = await tx.get<{ file_id: number }>(
      'DELETE FROM resend_requests WHERE id = ? AND taken_by IS NULL RETURNING file_id',
      [requestId],
    );
    if (r) await addEvent(tx, now, 'resend-cancelled', r.file_id, null, { request: requestId });
  });
}

/** Ids of the earlier files of the same content that hold documents (not duplicate-file records), oldest first. */
async function earlierFiles(q: SqlExecutor, fileId: number): Promise<number[]> {
  return (
    await q.all<{ id: number }>(
      `SELECT e.id FROM files f JOIN files e ON e.company = f.company AND e.kind = f.kind AND e.sha256 = f.sha256
    WHERE f.id = ? AND e.id < f.id AND e.duplicate_of IS NULL ORDER BY e.id`,
      [fileId],
    )
  ).map((r) => r.id);
}

/**
 * Earlier files at the same path that changed after their documents were sent
 * (EDOC_READ_CHANGED_AFTER_SEND): this file is their grown or rewritten content.
 */
async function changedFilesAtPath(q: SqlExecutor, fileId: number): Promise<number[]> {
  return (
    await q.all<{ id: number }>(
      `SELECT e.id FROM files f JOIN files e ON e.company = f.company AND e.kind = f.kind AND e.path = f.path
    AND e.sha256 <> f.sha256 AND e.error LIKE '%EDOC_READ_CHANGED_AFTER_SEND%'
    WHERE f.id = ? AND e.id < f.id AND e.duplicate_of IS NULL ORDER BY e.id`,
      [fileId],
    )
  ).map((r) => r.id);
}

export type EarlierCopy = 'accepted' | 'open' | undefined;

/**
 * For insertDocuments: how the earlier copies of a document (same index, same source text) ended, in
 * the earlier files of the same content (a resend) and, for a document the service numbers, in the
 * earlier content of a file that changed after sending began: its number rule cannot tell that the
 * service issued it from the first content, so without this it would be issued again. (A document
 * with its own number is kept from a second issue there by the number rule.) undefined when there is
 * no earlier copy to look at (the common case: no lookups). The lookup reads on the executor it is given
 * (the insert's transaction).
 */
export async function earlierCopyLookup(
  q: SqlExecutor,
  fileId: number,
): Promise<
  | ((tx: SqlExecutor, index: number, raw: string, ownNumber: boolean) => Promise<EarlierCopy>)
  | undefined
> {
  const same = await earlierFiles(q, fileId);
  const changed = await changedFilesAtPath(q, fileId);
  if (same.length === 0 && changed.length === 0) return undefined;
  const all = [...same, ...changed];
  return async (tx, index, raw, ownNumber) => {
    if (ownNumber && same.length === 0) return undefined;
    const files = idList(tx, ownNumber ? same : all);
    const states = await tx.all<{ state: DocumentState }>(
      `SELECT d.state FROM documents d JOIN document_bodies b ON b.id = d.id
      WHERE d.file_id IN ${files.sql} AND d.idx = ? AND b.raw = ?`,
      [files.param, index, raw],
    );
    return classify(states.map((s) => s.state));
  };
}

function classify(states: readonly DocumentState[]): EarlierCopy {
  if (states.includes('accepted')) return 'accepted';
  if (states.some((s) => s === 'pending' || s === 'sending' || s === 'failed' || s === 'in-doubt'))
    return 'open';
  return undefined;
}

export interface ContentOutcome {
  /** Documents per outcome over every copy of this content: `accepted` (an accepted copy, or its number
   * accepted elsewhere: a resend reports it duplicate), `again` (only rejected/invalid copies: sent again),
   * and the ones that block a resend. */
  accepted: number;
  again: number;
  failed: number;
  inDoubt: number;
  inProgress: number;
}

/** What a resend of `file`'s content would do with each of its documents (see the module comment). */
export async function contentOutcome(q: SqlExecutor, file: FileRow): Promise<ContentOutcome> {
  const rows = await q.all<{ idx: number; states: string }>(
    `SELECT d.idx AS idx, ${joinedGroup(q, 'd.state')} AS states
    FROM documents d JOIN files f ON f.id = d.file_id WHERE f.company = ? AND f.kind = ? AND f.sha256 = ? GROUP BY d.idx`,
    [file.company, file.kind, file.sha256],
  );
  const out: ContentOutcome = { accepted: 0, again: 0, failed: 0, inDoubt: 0, inProgress: 0 };
  for (const r of rows) {
    const states = r.states.split(',');
    if (states.includes('accepted') || states.includes('duplicate')) out.accepted++;
    else if (states.includes('in-doubt')) out.inDoubt++;
    else if (states.includes('pending') || states.includes('sending')) out.inProgress++;
    else if (states.includes('failed')) out.failed++;
    else out.again++;
  }
  return out;
}

/**
 * Files an operator may mean by `name`: its input name, report stem, original path, or archived copy
 * (full path or the archive's own name, `NAME (2).csv`), oldest first.
 */
/**
 * The condition that files row `${alias}` is the one an operator names: its input name, report name, path,
 * archived path, or the archived copy's name (a tail of its archived path). `filesMatching` and a retry by
 * file (status.ts `requeue`) take a name alike.
 */
export function fileNamed(
  q: SqlExecutor,
  alias: string,
  name: string,
): { sql: string; params: unknown[] } {
  const a = alias;
  return {
    sql: `(${a}name = ? OR ${a}report_name = ? OR ${a}path = ? OR ${a}archived_path = ?
    OR (${a}archived_path <> '' AND ${endsWithTail(q, `${a}archived_path`)}))`,
    params: [name, name, name, name, name, name],
  };
}

export async function filesMatching(q: SqlExecutor, name: string): Promise<FileRow[]> {
  const named = fileNamed(q, '', name);
  const ids = await q.all<{ id: number }>(
    `SELECT id FROM files WHERE ${named.sql} ORDER BY id`,
    named.params,
  );
  const out: FileRow[] = [];
  for (const { id } of ids) {
    const f = await getFile(q, id);
    if (f !== undefined) out.push(f);
  }
  return out;
}
