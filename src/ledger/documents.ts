/**
 * A file's documents: storing them at intake, and the reads of the sender (what is due, what a number
 * may already have done). Sending, verdicts and recovery are in sending.ts.
 */
import { kindsSharingNumbers, parseKind, type DocumentKind } from '../kinds/index.js';
import { NO_FENCE, type Fence } from './fence.js';
import { addEvents, type LedgerEvent } from './events.js';
import { earlierCopyLookup, type EarlierCopy } from './resend.js';
import { ISSUED_COLUMNS, otherContentProblem, type IssuedRow } from './issued-content.js';
import { checkReferences } from './note-references.js';
import { acceptedErpKeys, erpKeyDuplicate, erpKeyOf } from './erp-keys.js';
import { otherCompanyHold } from './other-company.js';
import { DOCUMENT_SELECT, json, makeKey, parse, toDocumentRow } from './rows.js';
import type { RawDocument } from './rows.js';
import { idList, textList } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import type {
  DocumentRow,
  DueDocument,
  InsertResult,
  NewDocument,
  ReportProblem,
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
export async function insertDocuments(
  q: SqlExecutor,
  fileId: number,
  docs: Iterable<NewDocument> | AsyncIterable<NewDocument>,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<InsertResult> {
  const file = await q.get<{ company: string; kind: string }>(
    'SELECT company, kind FROM files WHERE id = ?',
    [fileId],
  );
  if (!file) throw new Error(`insertDocuments: no file ${fileId}`);
  const result: InsertResult = { inserted: 0, invalid: 0, duplicate: 0 };
  const kind = parseKind(file.kind, `ledger file ${fileId}`);
  // the same content taken before (a resend): a document's earlier copy decides whether it may go again
  const earlier = await earlierCopyLookup(q, fileId);
  // the same content taken for another company: every document that could go is held (other-company.ts)
  const hold = await otherCompanyHold(q, fileId);
  const write = (batch: NewDocument[]): Promise<void> =>
    q.transaction(async (tx) => {
      await fence(tx, [file.company]);
      const keyOf = (d: NewDocument): string | null =>
        d.number ? makeKey(file.company, d.kind ?? file.kind, d.number) : null;
      const hasProblems = (d: NewDocument): boolean =>
        d.problems !== undefined && d.problems.length > 0;
      // one read for the batch: which of its keys were accepted already
      const accepted = await acceptedKeys(
        tx,
        batch
          .filter((d) => !hasProblems(d))
          .map(keyOf)
          .filter((k): k is string => k !== null),
      );
      // and which of its ERP keys (documents the service numbers: erp-keys.ts)
      const erpKeyOfDoc = (d: NewDocument): string | undefined =>
        d.erpKey === undefined ? undefined : erpKeyOf(file.company, d.kind ?? file.kind, d.erpKey);
      const acceptedErp = await acceptedErpKeys(
        tx,
        file.company,
        batch
          .filter((d) => !hasProblems(d) && d.erpKey !== undefined)
          .map((d) => ({ kind: d.kind ?? file.kind, erpKey: d.erpKey! })),
      );
      const planned: PlannedDocument[] = [];
      for (const d of batch) {
        const key = keyOf(d);
        let problems: ReportProblem[] | null = hasProblems(d) ? d.problems! : null;
        const erpKey = erpKeyOfDoc(d);
        const dupOf =
          !problems && key
            ? accepted.get(key)
            : !problems && erpKey !== undefined
              ? acceptedErp.get(erpKey)
              : undefined;
        const copy =
          !problems && !dupOf && earlier
            ? await earlier(tx, d.index, d.raw, d.ownNumber === true)
            : undefined;
        // a note whose referenced document the ledger holds as never issued is held (note-references.ts)
        const ref =
          !problems && !dupOf && copy === undefined
            ? await checkReferences(tx, file.company, d.kind ?? kind, d.references)
            : undefined;
        if (ref !== undefined)
          (result.byReference ??= []).push({
            index: d.index,
            ...('notIssued' in ref ? { notIssued: ref.notIssued.message } : ref),
          });
        if (ref !== undefined && 'notIssued' in ref) problems = [ref.notIssued];
        if (hold !== undefined && !problems && !dupOf && copy === undefined) {
          problems = [hold];
          (result.heldForOtherCompany ??= { count: 0, message: hold.message }).count++;
        }
        const state =
          problems || copy === 'open'
            ? 'invalid'
            : dupOf || copy === 'accepted'
              ? 'duplicate'
              : 'pending';
        // the number was issued: the same content is a quiet duplicate, other content (a corrected re-export) needs a person
        const byErp =
          dupOf && !key && d.erpKey !== undefined
            ? await erpKeyDuplicate(tx, dupOf, {
                source: d.source,
                erpKey: d.erpKey,
                content: d.content,
              })
            : undefined;
        const other =
          byErp !== undefined
            ? byErp.otherContent
              ? byErp.problem
              : undefined
            : dupOf
              ? await otherContentProblem(tx, dupOf, d.content)
              : undefined;
        const errors = other
          ? [other]
          : byErp
            ? [byErp.problem]
            : dupOf
              ? [
                  {
                    code: 'EDOC_LEDGER_DUPLICATE_KEY',
                    message: `${d.number} was already accepted; not sent again.`,
                  },
                ]
              : copy === undefined
                ? null
                : [earlierCopyError(copy)];
        planned.push({ d, key, state, problems, errors, dupOf, copy, other: other?.message });
      }
      const ids = await insertRows(tx, fileId, file, planned, now);
      let first: number | undefined;
      let last: number | undefined;
      const added = { pending: 0, invalid: 0, duplicate: 0 };
      const events: LedgerEvent[] = [];
      for (const { d, key, state, dupOf, copy, other } of planned) {
        const id = ids.get(d.index);
        if (id === undefined) continue;
        first ??= d.index;
        last = d.index;
        result.inserted++;
        added[state]++;
        if (state === 'invalid') result.invalid++;
        if (dupOf) {
          result.duplicate++;
          (result.byAcceptedKey ??= []).push({
            index: d.index,
            fileId: dupOf.file_id,
            ...(other === undefined ? {} : { otherContent: other }),
          });
          events.push({
            at: now,
            type: 'duplicate-key',
            fileId,
            documentId: id,
            data: {
              ...(key === null ? { erpKey: d.erpKey } : { key }),
              acceptedDocument: dupOf.id,
              ...(other === undefined ? {} : { otherContent: true }),
            },
          });
        } else if (copy !== undefined) {
          if (copy === 'accepted') result.duplicate++;
          (result.byEarlierCopy ??= []).push({
            index: d.index,
            state: copy === 'accepted' ? 'duplicate' : 'invalid',
          });
          events.push({
            at: now,
            type: 'earlier-copy',
            fileId,
            documentId: id,
            data: { earlierCopy: copy },
          });
        }
      }
      for (const [state, n] of Object.entries(added)) {
        if (n > 0) {
          await tx.run(
            `INSERT INTO file_counts(file_id, state, n) VALUES (?, ?, ?)
          ON CONFLICT(file_id, state) DO UPDATE SET n = file_counts.n + excluded.n`,
            [fileId, state, n],
          );
        }
      }
      if (first !== undefined)
        events.push({
          at: now,
          type: 'documents-added',
          fileId,
          documentId: null,
          data: { from: first, to: last },
        });
      await addEvents(tx, events);
    });
  let batch: NewDocument[] = [];
  const flush = async (): Promise<void> => {
    const full = batch;
    batch = [];
    await write(full);
  };
  if (Symbol.asyncIterator in docs) {
    for await (const d of docs) {
      batch.push(d);
      if (batch.length >= INSERT_BATCH) await flush();
    }
  } else {
    for (const d of docs) {
      batch.push(d);
      if (batch.length >= INSERT_BATCH) await flush();
    }
  }
  if (batch.length > 0) await flush();
  return result;
}

function earlierCopyError(copy: 'accepted' | 'open'): { code: string; message: string } {
  return copy === 'accepted'
    ? {
        code: 'EDOC_LEDGER_DUPLICATE_DOCUMENT',
        message:
          'This document was accepted when the same file content (or this file before it changed) ' +
          'was taken before; not sent again.',
      }
    : {
        code: 'EDOC_LEDGER_EARLIER_COPY_OPEN',
        message:
          'Not sent: this document of the same file content taken before is not final ' +
          '(pending, failed or in-doubt); settle it there first (edoc-bridge status, retry, resolve), then resend.',
      };
}

interface PlannedDocument {
  d: NewDocument;
  key: string | null;
  state: 'pending' | 'invalid' | 'duplicate';
  problems: unknown[] | null;
  errors: unknown[] | null;
  dupOf: IssuedRow | undefined;
  copy: EarlierCopy;
  /** EDOC_ISSUED_OTHER_CONTENT's message: what was issued under its number differs from it. */
  other: string | undefined;
}

/** The accepted document holding each of `keys` (the oldest, should there be two), in one statement. */
async function acceptedKeys(
  tx: SqlExecutor,
  keys: readonly string[],
): Promise<Map<string, IssuedRow>> {
  const out = new Map<string, IssuedRow>();
  if (keys.length === 0) return out;
  const list = textList(tx, keys);
  for (const r of await tx.all<IssuedRow>(
    `SELECT ${ISSUED_COLUMNS} FROM documents a JOIN files af ON af.id = a.file_id
    WHERE a.key IN ${list.sql} AND a.state = 'accepted' ORDER BY a.id`,
    [list.param],
  ))
    if (!out.has(r.key)) out.set(r.key, r);
  return out;
}

/** An inserted row whose id was not read (SQLite: only rows with an event need it). */
const NO_ID = 0;

/**
 * Inserts the planned rows with their bodies; an index stored already is left as it is. Returns the new
 * ids by index (NO_ID where no event needs it). SQLite, in process, inserts row by row in two calls for the batch (runMany);
 * PostgreSQL inserts the batch in two statements (a round trip per document would be most of an intake's time).
 */
async function insertRows(
  tx: SqlExecutor,
  fileId: number,
  file: { company: string; kind: string },
  rows: readonly PlannedDocument[],
  now: number,
): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  const values = rows.map(
    ({ d, key, state, problems, errors }) =>
      [
        fileId,
        d.index,
        file.company,
        d.kind ?? file.kind,
        JSON.stringify(d.source),
        key,
        d.ownNumber ? 1 : 0,
        state,
        json(problems),
        json(errors),
        now,
        d.customer ?? null,
        d.content ?? null,
        d.erpKey ?? null,
      ] as const,
  );
  const body = (d: NewDocument): [string | null, string, number] => {
    const fromRaw = d.requestFromRaw === true;
    return [
      fromRaw ? null : (d.requestText ?? json(d.request)),
      d.raw,
      fromRaw ? (d.rawIsRequestText === true ? RAW_EXACT : 1) : 0,
    ];
  };
  if (tx.dialect === 'sqlite') {
    // a statement per row, but one call per batch (runMany): two awaited calls per document were a fifth of the
    // intake's ledger time. No RETURNING: SQLite collects a RETURNING statement's rows before it answers.
    const changed = await tx.runMany(
      `INSERT INTO documents(file_id, idx, company, kind, source, key, own_number, state,
      attempts, next_attempt_at, problems, errors, updated_at, customer, content, erp_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(file_id, idx) DO NOTHING`,
      values,
    );
    const stored = rows.filter((_, i) => changed[i].changes > 0);
    if (stored.length === 0) return ids;
    // each body finds its row by (file_id, idx), the unique key the insert just used
    await tx.runMany(
      `INSERT INTO document_bodies(id, request, raw, request_is_raw)
      SELECT id, ?, ?, ? FROM documents WHERE file_id = ? AND idx = ?`,
      stored.map((r) => [...body(r.d), fileId, r.d.index]),
    );
    // the id itself is read only for the rows with an event (a duplicate key, an earlier copy): rare
    const withEvent = stored.filter((r) => r.dupOf || r.copy !== undefined).map((r) => r.d.index);
    const evented = new Map<number, number>();
    if (withEvent.length > 0) {
      const list = idList(tx, withEvent);
      for (const r of await tx.all<{ id: number; idx: number }>(
        `SELECT id, idx FROM documents WHERE file_id = ? AND idx IN ${list.sql}`,
        [fileId, list.param],
      ))
        evented.set(r.idx, r.id);
    }
    for (const r of stored) ids.set(r.d.index, evented.get(r.d.index) ?? NO_ID);
    return ids;
  }
  const column = (k: number): unknown[] => values.map((v) => v[k]);
  const inserted = await tx.all<{ id: number; idx: number }>(
    `INSERT INTO documents(file_id, idx, company, kind, source, key, own_number,
    state, attempts, next_attempt_at, problems, errors, updated_at, customer, content, erp_key)
    SELECT f, i, c, k, s, ky, o, st, 0, NULL, p, e, u, cu, ct, ek FROM unnest(CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]),
      CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS SMALLINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),
      CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]))
      AS v(f, i, c, k, s, ky, o, st, p, e, u, cu, ct, ek)
    ON CONFLICT(file_id, idx) DO NOTHING RETURNING id, idx`,
    Array.from({ length: 14 }, (_, k) => column(k)),
  );
  for (const r of inserted) ids.set(r.idx, r.id);
  const stored = rows.filter((r) => ids.has(r.d.index));
  if (stored.length > 0) {
    const bodies = stored.map((r) => body(r.d));
    await tx.run(
      `INSERT INTO document_bodies(id, request, raw, request_is_raw) SELECT * FROM unnest(CAST(? AS BIGINT[]),
      CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS SMALLINT[]))`,
      [
        stored.map((r) => ids.get(r.d.index)),
        bodies.map((b) => b[0]),
        bodies.map((b) => b[1]),
        bodies.map((b) => b[2]),
      ],
    );
  }
  return ids;
}

export async function acceptedKey(
  q: SqlExecutor,
  key: string,
): Promise<{ documentId: number; fileId: number } | undefined> {
  const r = await q.get<{ id: number; file_id: number }>(
    `SELECT id, file_id FROM documents WHERE key = ? AND state = 'accepted' LIMIT 1`,
    [key],
  );
  return r ? { documentId: r.id, fileId: r.file_id } : undefined;
}

/**
 * `document_bodies.request_is_raw`: 0 the request's text is `request`, made by `JSON.stringify`; 1 it is
 * `raw` (JSON, JSONL inputs), stored once; RAW_EXACT it is `raw`, and `raw` is exactly what `JSON.stringify`
 * makes of it (intake compared the two). 0 and RAW_EXACT texts are sent as they are stored.
 */
const RAW_EXACT = 2;
/** The stored request text of `document_bodies b` (see its request_is_raw). */
const REQUEST_TEXT = 'CASE WHEN b.request_is_raw <> 0 THEN b.raw ELSE b.request END';
/** What toDue reads, from documents d, document_bodies b and files f. */
const DUE_SELECT = `SELECT d.id, d.file_id, d.idx, d.company, d.kind, d.key, d.own_number, d.attempts, d.last_outcome,
  d.maybe_delivered, f.name AS file_name, ${REQUEST_TEXT} AS request, b.request_is_raw AS text_form
  FROM documents d JOIN document_bodies b ON b.id = d.id JOIN files f ON f.id = d.file_id`;

interface DueRow {
  id: number;
  file_id: number;
  file_name: string;
  idx: number;
  company: string;
  kind: string;
  key: string | null;
  own_number: number;
  attempts: number;
  last_outcome: string | null;
  maybe_delivered: number;
  text_form: number;
  request: string | null;
}

/** Pending documents of a company due at `now`, in due order then file order. Does not change them. */
export async function claimDue(
  q: SqlExecutor,
  company: string,
  now: number,
  limit: number,
  exclude?: ReadonlySet<number>,
): Promise<DueDocument[]> {
  // One statement: the documents already queued (`exclude`) are left out by the query itself, so the request
  // text is read only for the documents returned (and not looked up one statement each).
  const queued = idList(q, exclude ?? []);
  const rows = await q.all<DueRow>(
    `${DUE_SELECT}
    WHERE d.company = ? AND d.state = 'pending' AND d.next_attempt_at <= ? AND d.id NOT IN ${queued.sql}
    ORDER BY d.next_attempt_at, d.id LIMIT ?`,
    [company, now, queued.param, limit],
  );
  return rows.map(toDue);
}

function toDue(r: DueRow): DueDocument {
  let parsed: { value: unknown } | undefined;
  const request = r.request;
  return {
    id: r.id,
    fileId: r.file_id,
    fileName: r.file_name,
    index: r.idx,
    company: r.company,
    kind: parseKind(r.kind, `ledger document ${r.id}`),
    key: r.key,
    ownNumber: r.own_number === 1,
    attempts: r.attempts,
    lastOutcome: parse(r.last_outcome, null),
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
export async function numberMayHaveBeenDelivered(
  q: SqlExecutor,
  doc: { company: string; kind: DocumentKind; key: string | null; id: number },
): Promise<boolean> {
  const own =
    (
      await q.get<{ m: number }>('SELECT maybe_delivered AS m FROM documents WHERE id = ?', [
        doc.id,
      ])
    )?.m === 1;
  const head = `${doc.company}/${doc.kind}/`;
  if (own || doc.key === null || !doc.key.startsWith(head)) return own;
  const number = doc.key.slice(head.length);
  for (const kind of kindsSharingNumbers(doc.kind)) {
    if (
      await q.get('SELECT 1 FROM documents WHERE key = ? AND maybe_delivered = 1 LIMIT 1', [
        makeKey(doc.company, kind, number),
      ])
    )
      return true;
  }
  return false;
}

/** The earliest future attempt of a company (for the feeder's timer), or undefined. */
export async function nextDueAt(q: SqlExecutor, company: string): Promise<number | undefined> {
  // documents of a file still being read have no next_attempt_at yet (held back)
  const r = await q.get<{ t: number }>(
    `SELECT next_attempt_at AS t FROM documents WHERE company = ? AND state = 'pending'
    AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT 1`,
    [company],
  );
  return r?.t;
}

/** Documents left `sending` by a process that died (of one company when given): their requests may or may not have arrived. */
export async function sendingAtStart(q: SqlExecutor, company?: string): Promise<DueDocument[]> {
  const rows =
    company === undefined
      ? await q.all<DueRow>(`${DUE_SELECT} WHERE d.state = 'sending' ORDER BY d.id`)
      : await q.all<DueRow>(
          `${DUE_SELECT} WHERE d.state = 'sending' AND d.company = ? ORDER BY d.id`,
          [company],
        );
  return rows.map(toDue);
}

export async function getDocument(q: SqlExecutor, id: number): Promise<DocumentRow | undefined> {
  const r = await q.get<RawDocument>(`${DOCUMENT_SELECT} WHERE d.id = ?`, [id]);
  return r ? toDocumentRow(r) : undefined;
}
