import type Database from 'better-sqlite3';
import { kindsSharingNumbers, parseKind, type DocumentKind } from '../kinds/index.js';
import { addEvent } from './files.js';
import { earlierCopyLookup } from './resend.js';
import { DOCUMENT_SELECT, json, makeKey, parse, stmt, toDocumentRow } from './rows.js';
import type { RawDocument } from './rows.js';
import type {
  DocumentRow, DueDocument, InsertResult, MarkSendingResult, NewDocument, OutcomeRecord,
} from './types.js';

const INSERT_BATCH = 1000;
/** How long a document waits when another one with its key is being sent. */
export const KEY_IN_FLIGHT_DELAY_MS = 2000;

/**
 * Stores a file's documents, ~1000 per transaction (one fsync each). Indexes already stored are
 * ignored, so a file whose reading was cut by a crash is simply read again. A document with problems
 * is stored `invalid`; one whose key was already accepted is stored `duplicate` — neither is sent.
 * A pending document is stored held back (no `next_attempt_at`, so `claimDue` never sees it): the
 * file's documents become due together in `finishReading`, once the whole file was read and found
 * unchanged — no document may leave from content that is not the file's final content.
 */
export function insertDocuments(db: Database.Database, fileId: number, docs: Iterable<NewDocument>, now: number): InsertResult {
  const file = stmt(db, 'SELECT company, kind FROM files WHERE id = ?').get(fileId) as { company: string; kind: string } | undefined;
  if (!file) throw new Error(`insertDocuments: no file ${fileId}`);
  const insert = stmt(db, `INSERT INTO documents(file_id, idx, company, kind, source, key, own_number, state,
    attempts, next_attempt_at, problems, errors, updated_at, customer)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?) ON CONFLICT(file_id, idx) DO NOTHING`);
  const body = stmt(db, 'INSERT INTO document_bodies(id, request, raw, request_is_raw) VALUES (?, ?, ?, ?)');
  const accepted = stmt(db, `SELECT id, file_id FROM documents WHERE key = ? AND state = 'accepted' LIMIT 1`);
  const count = stmt(db, `INSERT INTO file_counts(file_id, state, n) VALUES (?, ?, ?)
    ON CONFLICT(file_id, state) DO UPDATE SET n = n + excluded.n`);
  const result: InsertResult = { inserted: 0, invalid: 0, duplicate: 0 };
  // the same content taken before (a resend): a document's earlier copy decides whether it may go again
  const earlier = earlierCopyLookup(db, fileId);
  const write = db.transaction((batch: NewDocument[]) => {
    let first: number | undefined;
    let last: number | undefined;
    const added = { pending: 0, invalid: 0, duplicate: 0 };
    for (const d of batch) {
      const key = d.number ? makeKey(file.company, file.kind, d.number) : null;
      const problems = d.problems && d.problems.length > 0 ? d.problems : null;
      const dupOf = !problems && key ? (accepted.get(key) as { id: number; file_id: number } | undefined) : undefined;
      const copy = !problems && !dupOf && earlier ? earlier(d.index, d.raw, d.ownNumber === true) : undefined;
      const state = problems || copy === 'open' ? 'invalid' : dupOf || copy === 'accepted' ? 'duplicate' : 'pending';
      const errors = dupOf ? [{ code: 'EDOC_LEDGER_DUPLICATE_KEY', message: `${d.number} was already accepted; not sent again.` }]
        : copy === undefined ? null : [earlierCopyError(copy)];
      const info = insert.run(fileId, d.index, file.company, file.kind, JSON.stringify(d.source), key,
        d.ownNumber ? 1 : 0, state, null, json(problems), json(errors), now, d.customer ?? null);
      if (info.changes === 0) continue;
      const id = Number(info.lastInsertRowid);
      const fromRaw = d.requestFromRaw === true;
      body.run(id, fromRaw ? null : d.requestText ?? json(d.request), d.raw, fromRaw ? (d.rawIsRequestText === true ? RAW_EXACT : 1) : 0);
      first ??= d.index;
      last = d.index;
      result.inserted++;
      added[state]++;
      if (state === 'invalid') result.invalid++;
      if (dupOf) {
        result.duplicate++;
        (result.byAcceptedKey ??= []).push({ index: d.index, fileId: dupOf.file_id });
        addEvent(db, now, 'duplicate-key', fileId, id, { key, acceptedDocument: dupOf.id });
      } else if (copy !== undefined) {
        if (copy === 'accepted') result.duplicate++;
        (result.byEarlierCopy ??= []).push({ index: d.index, state: copy === 'accepted' ? 'duplicate' : 'invalid' });
        addEvent(db, now, 'earlier-copy', fileId, id, { earlierCopy: copy });
      }
    }
    for (const [state, n] of Object.entries(added)) if (n > 0) count.run(fileId, state, n);
    if (first !== undefined) addEvent(db, now, 'documents-added', fileId, null, { from: first, to: last });
  });
  let batch: NewDocument[] = [];
  for (const d of docs) {
    batch.push(d);
    if (batch.length >= INSERT_BATCH) {
      write.immediate(batch);
      batch = [];
    }
  }
  if (batch.length > 0) write.immediate(batch);
  return result;
}

function earlierCopyError(copy: 'accepted' | 'open'): { code: string; message: string } {
  return copy === 'accepted'
    ? { code: 'EDOC_LEDGER_DUPLICATE_DOCUMENT', message: 'This document was accepted when the same file content (or this file before it changed) '
      + 'was taken before; not sent again.' }
    : { code: 'EDOC_LEDGER_EARLIER_COPY_OPEN', message: 'Not sent: this document of the same file content taken before is not final '
      + '(pending, failed or in-doubt); settle it there first (edoc-bridge status, retry, resolve), then resend.' };
}

export function acceptedKey(db: Database.Database, key: string): { documentId: number; fileId: number } | undefined {
  const r = stmt(db, `SELECT id, file_id FROM documents WHERE key = ? AND state = 'accepted' LIMIT 1`).get(key) as
    { id: number; file_id: number } | undefined;
  return r ? { documentId: r.id, fileId: r.file_id } : undefined;
}

/** Pending documents of a company due at `now`, in due order then file order. Does not change them. */
export function claimDue(db: Database.Database, company: string, now: number, limit: number,
  exclude?: ReadonlySet<number>): DueDocument[] {
  // One statement: the documents already queued (`exclude`) are left out by the query itself, so the request
  // text is read only for the documents returned (and not looked up one statement each).
  const rows = stmt(db, `SELECT d.id, d.file_id, d.idx, d.company, d.kind, d.key, d.own_number, d.attempts, d.last_outcome,
      d.maybe_delivered, f.name AS file_name, ${REQUEST_TEXT} AS request, b.request_is_raw AS text_form
    FROM documents d JOIN document_bodies b ON b.id = d.id JOIN files f ON f.id = d.file_id
    WHERE d.company = ? AND d.state = 'pending' AND d.next_attempt_at <= ? AND d.id NOT IN (SELECT value FROM json_each(?))
    ORDER BY d.next_attempt_at, d.id LIMIT ?`)
    .all(company, now, JSON.stringify(exclude === undefined ? [] : [...exclude]), limit) as (DueRow & { request: string | null })[];
  const out: DueDocument[] = [];
  for (const r of rows) out.push(toDue(r, r.request));
  return out;
}

/**
 * `document_bodies.request_is_raw`: 0 the request's text is `request`, made by `JSON.stringify`; 1 it is
 * `raw` (JSON, JSONL inputs), stored once; RAW_EXACT it is `raw`, and `raw` is exactly what `JSON.stringify`
 * makes of it (intake compared the two). 0 and RAW_EXACT texts are sent as they are stored.
 */
const RAW_EXACT = 2;
/** The stored request text of `document_bodies b` (see its request_is_raw). */
const REQUEST_TEXT = 'CASE WHEN b.request_is_raw <> 0 THEN b.raw ELSE b.request END';

interface DueRow {
  id: number; file_id: number; file_name: string; idx: number; company: string; kind: string; key: string | null;
  own_number: number; attempts: number; last_outcome: string | null; maybe_delivered: number; text_form: number;
}

function toDue(r: DueRow, request: string | null): DueDocument {
  let parsed: { value: unknown } | undefined;
  return { id: r.id, fileId: r.file_id, fileName: r.file_name, index: r.idx, company: r.company, kind: parseKind(r.kind, `ledger document ${r.id}`), key: r.key,
    ownNumber: r.own_number === 1, attempts: r.attempts, lastOutcome: parse(r.last_outcome, null),
    maybeDelivered: r.maybe_delivered === 1,
    ...(request !== null && r.text_form !== 1 ? { requestText: request } : {}),
    // parsed only where something reads it (a send of requestText does not)
    get request(): unknown {
      parsed ??= { value: parse(request, null) };
      return parsed.value;
    },
  };
}

/**
 * Whether any document of ours with this number (company + kind family + prefix + number: invoices,
 * credit and debit notes share one, as the authority's rule 90 does) had an attempt that may have
 * reached the service. Decides what a repeated-number answer (Regla 90) means; see decide.ts.
 */
export function numberMayHaveBeenDelivered(db: Database.Database, doc: { company: string; kind: DocumentKind; key: string | null; id: number }): boolean {
  const own = stmt(db, 'SELECT maybe_delivered FROM documents WHERE id = ?').pluck().get(doc.id) === 1;
  const head = `${doc.company}/${doc.kind}/`;
  if (own || doc.key === null || !doc.key.startsWith(head)) return own;
  const number = doc.key.slice(head.length);
  const any = stmt(db, 'SELECT 1 FROM documents WHERE key = ? AND maybe_delivered = 1 LIMIT 1').pluck();
  return kindsSharingNumbers(doc.kind).some((kind) => any.get(makeKey(doc.company, kind, number)) === 1);
}

/** The earliest future attempt of a company (for the feeder's timer), or undefined. */
export function nextDueAt(db: Database.Database, company: string): number | undefined {
  // documents of a file still being read have no next_attempt_at yet (held back)
  const r = stmt(db, `SELECT next_attempt_at AS t FROM documents WHERE company = ? AND state = 'pending'
    AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT 1`).get(company) as { t: number } | undefined;
  return r?.t;
}

/**
 * Marks a batch `sending` with its attempt number in ONE transaction. The caller must not let the
 * requests leave before this returns: after a crash, `sending` is the only trace that a request may
 * have reached the service, and it decides between resending (own number) and in-doubt.
 */
export function markSending(db: Database.Database, ids: readonly number[], now: number): MarkSendingResult {
  // One statement reads the whole batch with its key checks; one updates and one logs the documents to
  // send (the hot path: a handful of statements per batch rather than seven per document).
  const read = stmt(db, `SELECT d.id, d.file_id, d.key, d.state,
      CASE WHEN d.key IS NULL THEN NULL ELSE
        (SELECT a.id FROM documents a WHERE a.key = d.key AND a.state = 'accepted' AND a.id <> d.id LIMIT 1) END AS dup,
      CASE WHEN d.key IS NULL THEN 0 ELSE
        EXISTS (SELECT 1 FROM documents s WHERE s.key = d.key AND s.state = 'sending' AND s.id <> d.id) END AS busy
    FROM documents d WHERE d.id IN (SELECT value FROM json_each(?))`);
  const toSending = stmt(db, `UPDATE documents SET state = 'sending', attempts = attempts + 1, updated_at = ?
    WHERE id IN (SELECT value FROM json_each(?))`);
  const logSending = stmt(db, `INSERT INTO events(at, file_id, document_id, type, data)
    SELECT ?, file_id, id, 'sending', json_object('attempt', attempts) FROM documents WHERE id IN (SELECT value FROM json_each(?))`);
  const toDuplicate = stmt(db, `UPDATE documents SET state = 'duplicate', errors = ?, updated_at = ? WHERE id = ?`);
  const toLater = stmt(db, `UPDATE documents SET next_attempt_at = ?, updated_at = ? WHERE id = ?`);
  const result: MarkSendingResult = { sending: [], duplicate: [], skipped: [], deferred: [] };
  db.transaction(() => {
    const rows = new Map((read.all(JSON.stringify(ids)) as
      { id: number; file_id: number; key: string | null; state: string; dup: number | null; busy: number }[]).map((r) => [r.id, r]));
    const keys = new Set<string>();
    for (const id of ids) {
      const d = rows.get(id);
      if (!d || d.state !== 'pending') {
        result.skipped.push(id);
        continue;
      }
      if (d.dup !== null) {
        toDuplicate.run(JSON.stringify([{ code: 'EDOC_LEDGER_DUPLICATE_KEY', message: 'Already accepted; not sent again.' }]), now, id);
        addEvent(db, now, 'duplicate-key', d.file_id, id, { key: d.key, acceptedDocument: d.dup });
        result.duplicate.push(id);
        continue;
      }
      if (d.key !== null && (d.busy === 1 || keys.has(d.key))) {
        // the same number is on its way in another document: wait for that verdict instead of racing it
        toLater.run(now + KEY_IN_FLIGHT_DELAY_MS, now, id);
        result.deferred.push(id);
        continue;
      }
      if (d.key !== null) keys.add(d.key);
      result.sending.push(id);
    }
    if (result.sending.length > 0) {
      const list = JSON.stringify(result.sending);
      toSending.run(now, list);
      logSending.run(now, list);
    }
  }).immediate();
  return result;
}

/**
 * Takes back `sending` marks whose requests never left (the sender stopped or paused before their
 * turn): back to `pending`, due now, the attempt not counted. Returns the ids that changed.
 */
export function unmarkSending(db: Database.Database, ids: readonly number[], now: number): number[] {
  const back = stmt(db, `UPDATE documents SET state = 'pending', attempts = attempts - 1, next_attempt_at = ?, updated_at = ?
    WHERE id = ? AND state = 'sending' RETURNING file_id`);
  const done: number[] = [];
  db.transaction(() => {
    for (const id of ids) {
      const row = back.get(now, now, id) as { file_id: number } | undefined;
      if (!row) continue;
      addEvent(db, now, 'not-sent', row.file_id, id);
      done.push(id);
    }
  }).immediate();
  return done;
}

/**
 * Commits outcomes of sent documents (final, or back to `pending` for a retry) in one transaction.
 * Only documents still `sending` change; returns the ids that did, and the files they belong to.
 */
export function recordOutcomes(db: Database.Database, records: readonly OutcomeRecord[], now: number):
  { applied: number[]; fileIds: number[] } {
  // maybe_delivered only ever goes up (migration 4): a later answer does not undo an earlier lost one.
  const update = stmt(db, `UPDATE documents SET state = @state, next_attempt_at = @nextAttemptAt,
    last_outcome = @outcome, result_code = @resultCode, http_status = @httpStatus, errors = @errors,
    warnings = @warnings, response = @response, key = coalesce(key, @key), updated_at = @now, maybe_delivered = max(maybe_delivered, @maybe),
    doubt = @doubt WHERE id = @id AND state = 'sending'
    RETURNING file_id`);
  const applied: number[] = [];
  const files = new Set<number>();
  db.transaction(() => {
    for (const r of records) {
      if (r.state === 'pending' && r.nextAttemptAt === undefined) throw new Error('a retry needs nextAttemptAt');
      const row = update.get({
        id: r.id, state: r.state, nextAttemptAt: r.state === 'pending' ? r.nextAttemptAt : null,
        outcome: json(r.outcome), resultCode: r.resultCode ?? null, httpStatus: r.httpStatus ?? null,
        errors: json(r.errors && r.errors.length > 0 ? r.errors : null),
        warnings: json(r.warnings && r.warnings.length > 0 ? r.warnings : null), response: json(r.response), now,
        maybe: r.maybeDelivered === true ? 1 : 0, doubt: r.state === 'in-doubt' ? (r.doubt ?? 'no-answer') : null,
        key: r.key ?? null,
      }) as { file_id: number } | undefined;
      if (!row) continue;
      applied.push(r.id);
      files.add(row.file_id);
      if (r.maybeDelivered === true) addEvent(db, now, 'maybe-delivered', row.file_id, r.id, { httpStatus: r.httpStatus });
      addEvent(db, now, r.state === 'pending' ? 'retry-scheduled' : r.state, row.file_id, r.id, {
        resultCode: r.resultCode, httpStatus: r.httpStatus, nextAttemptAt: r.nextAttemptAt, note: r.note,
        ...(r.key === undefined ? {} : { assignedKey: r.key }),
      });
    }
  }).immediate();
  return { applied, fileIds: [...files] };
}

/** Documents left `sending` by a process that died: their requests may or may not have arrived. */
export function sendingAtStart(db: Database.Database): DueDocument[] {
  const rows = stmt(db, `SELECT d.id, d.file_id, f.name AS file_name, d.idx, d.company, d.kind, d.key, d.own_number, d.attempts,
    d.last_outcome, d.maybe_delivered, ${REQUEST_TEXT} AS request, b.request_is_raw AS text_form FROM documents d
    JOIN document_bodies b ON b.id = d.id JOIN files f ON f.id = d.file_id WHERE d.state = 'sending' ORDER BY d.id`)
    .all() as (DueRow & { request: string | null })[];
  return rows.map((r) => toDue(r, r.request));
}

/**
 * Crash recovery for `sending` documents: `resend` ids go back to `pending` (due now) — only those with
 * their own number, whose repeat the service rejects as a duplicate; the rest become `in-doubt`.
 */
export function recoverSending(db: Database.Database, now: number): { resent: number[]; inDoubt: number[] } {
  // The read inside the write transaction: what is recovered is exactly what was `sending` (port.ts's atomicity rule).
  return db.transaction(() => {
    const docs = sendingAtStart(db);
    const resend = docs.filter((d) => d.ownNumber);
    const doubt = docs.filter((d) => !d.ownNumber).map((d) => d.id);
    // The request may have left before the stop: the sticky flag makes a repeated-number answer to the
    // resend in-doubt rather than a clash (or an acceptance we cannot confirm).
    const back = stmt(db, `UPDATE documents SET state = 'pending', next_attempt_at = ?, updated_at = ?, maybe_delivered = 1,
      last_outcome = '{"kind":"unknown","reason":"crash"}' WHERE id = ? AND state = 'sending'`);
    for (const d of resend) {
      back.run(now, now, d.id);
      addEvent(db, now, 'resend-after-crash', d.fileId, d.id, { attempts: d.attempts });
      addEvent(db, now, 'maybe-delivered', d.fileId, d.id, { reason: 'crash while sending' });
    }
    setInDoubtTx(db, doubt, now, 'The process stopped after the request was sent; the document has no own number.');
    return { resent: resend.map((d) => d.id), inDoubt: doubt };
  }).immediate();
}

function setInDoubtTx(db: Database.Database, ids: readonly number[], now: number, reason: string): number[] {
  // Only ever for requests that may have gone out (recovery of `sending`): the sticky flag goes with it.
  const update = stmt(db, `UPDATE documents SET state = 'in-doubt', errors = ?, next_attempt_at = NULL, updated_at = ?,
    doubt = 'no-answer', maybe_delivered = 1 WHERE id = ? AND state IN ('sending','pending') RETURNING file_id`);
  const done: number[] = [];
  const errors = JSON.stringify([{ code: 'EDOC_SUBMIT_IN_DOUBT', message: reason }]);
  for (const id of ids) {
    const row = update.get(errors, now, id) as { file_id: number } | undefined;
    if (!row) continue;
    addEvent(db, now, 'in-doubt', row.file_id, id, { reason });
    done.push(id);
  }
  return done;
}

export function setInDoubt(db: Database.Database, ids: readonly number[], now: number, reason: string): number[] {
  return db.transaction(() => setInDoubtTx(db, ids, now, reason)).immediate();
}

export function getDocument(db: Database.Database, id: number): DocumentRow | undefined {
  const r = stmt(db, `${DOCUMENT_SELECT} WHERE d.id = ?`).get(id) as RawDocument | undefined;
  return r ? toDocumentRow(r) : undefined;
}
