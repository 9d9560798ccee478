/**
 * The sender's reads of the documents: what is due and when the next one is, what was being sent
 * when the process stopped, and what a number or key may already have done. Marking and verdicts are
 * in sending.ts.
 */
import { kindsSharingNumbers, parseKind, type DocumentKind } from '../kinds/index.js';
import { DOCUMENT_SELECT, makeKey, parse, toDocumentRow } from './rows.js';
import type { RawDocument } from './rows.js';
import { idList } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import type { DocumentRow, DueDocument } from './types.js';

/** How long a document waits when another one with its key is being sent. */
export const KEY_IN_FLIGHT_DELAY_MS = 2000;

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

/** The stored request text of `document_bodies b` (see its request_is_raw). */
const REQUEST_TEXT = 'CASE WHEN b.request_is_raw <> 0 THEN b.raw ELSE b.request END';
/** What toDue reads, from documents d, document_bodies b and files f. */
const DUE_SELECT = `SELECT d.id, d.file_id, d.idx, d.company, d.kind, d.key, d.own_number, d.attempts, d.last_outcome,
  d.maybe_delivered, d.warnings, f.name AS file_name, ${REQUEST_TEXT} AS request, b.request_is_raw AS text_form
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
  warnings: string | null;
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

/** The bridge's own warnings stored before the send (EDOC_…: intake's), kept beside the service's in its verdict. */
function keptWarnings(text: string | null): { warnings?: string[] } {
  if (text === null) return {};
  const own = parse<unknown[]>(text, []).filter(
    (w): w is string => typeof w === 'string' && w.startsWith('EDOC_'),
  );
  return own.length === 0 ? {} : { warnings: own };
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
    ...keptWarnings(r.warnings),
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

/** A company's open file and the first of its documents still to send (kind and stored request text). */
export interface OpenFileSample {
  fileName: string;
  kind: DocumentKind;
  request: string | null;
}

/**
 * Per open file of `company` (being read or sent), its first document still pending or sending: what the
 * start checks the configured company against (the issuer its requests were made for).
 */
export async function openFileSamples(q: SqlExecutor, company: string): Promise<OpenFileSample[]> {
  const rows = await q.all<{ file_name: string; kind: string; request: string | null }>(
    `SELECT f.name AS file_name, d.kind, ${REQUEST_TEXT} AS request FROM files f
    JOIN documents d ON d.id = (SELECT min(x.id) FROM documents x
      WHERE x.file_id = f.id AND x.state IN ('pending','sending'))
    JOIN document_bodies b ON b.id = d.id
    WHERE f.company = ? AND f.state IN ('reading','open') ORDER BY f.id`,
    [company],
  );
  return rows.map((r) => ({
    fileName: r.file_name,
    kind: parseKind(r.kind, `ledger document of ${r.file_name}`),
    request: r.request,
  }));
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
