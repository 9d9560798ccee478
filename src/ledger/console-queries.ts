/**
 * What the operator console (http/console/) and `edoc-bridge show` read: small paged queries, each on
 * an index, so a page costs the same with ten documents or a million (docs/operations.md has the
 * figures). Lists are keyset-paged on ids (never OFFSET) and capped at MAX_PAGE rows.
 */
import type Database from 'better-sqlite3';
import { DOCUMENT_SELECT, emptyCounts, parse, stmt, toDocumentRow, toFileRow } from './rows.js';
import type { RawDocument, RawFile } from './rows.js';
import type { DocumentRow, DocumentState, FileRow, FileState, StateCounts } from './types.js';

/** The most rows one page may ask for. */
export const MAX_PAGE = 200;

export interface ConsoleFile extends FileRow {
  counts: StateCounts;
}

export interface ConsoleDocument extends DocumentRow {
  company: string;
  kind: string;
  file: string;
  customer: string | null;
}

export interface DocumentEvent {
  id: number;
  at: number;
  type: string;
  data: unknown;
}

export interface DocumentHistory {
  document: ConsoleDocument;
  file: FileRow | undefined;
  /** Oldest first. */
  events: DocumentEvent[];
  /** More events than were read (a document retried for weeks). */
  eventsCut: boolean;
}

export interface Page<T> {
  rows: T[];
  /** The cursor of the next page (rows after the last one), absent on the last page. */
  next?: number;
}

export interface ReceivedRow {
  company: string;
  documentId: string;
  documentNumber: string | null;
  documentDate: string | null;
  files: string[];
  at: number;
}

const EVENTS_MAX = 1000;

function capped(limit: number): number {
  return Math.max(1, Math.min(MAX_PAGE, Math.floor(limit)));
}

function paged<T>(rows: T[], limit: number, cursor: (row: T) => number): Page<T> {
  if (rows.length <= limit) return { rows };
  const kept = rows.slice(0, limit);
  return { rows: kept, next: cursor(kept[kept.length - 1]) };
}

function withCounts(db: Database.Database, rows: RawFile[]): ConsoleFile[] {
  const counts = stmt(db, 'SELECT state, n FROM file_counts WHERE file_id = ?');
  return rows.map((r) => {
    const c = emptyCounts();
    for (const s of counts.all(r.id) as { state: DocumentState; n: number }[]) c[s.state] = s.n;
    return { ...toFileRow(r), counts: c };
  });
}

/** Files newest first, of one state or all (files_state / the primary key); `before` is the cursor. */
export function listFiles(db: Database.Database, q: { state?: FileState; before?: number; limit: number }): Page<ConsoleFile> {
  const limit = capped(q.limit);
  const before = q.before ?? Number.MAX_SAFE_INTEGER;
  const rows = (q.state === undefined
    ? stmt(db, 'SELECT * FROM files WHERE id < ? ORDER BY id DESC LIMIT ?').all(before, limit + 1)
    : stmt(db, 'SELECT * FROM files WHERE state = ? AND id < ? ORDER BY id DESC LIMIT ?').all(q.state, before, limit + 1)) as RawFile[];
  return paged(withCounts(db, rows), limit, (f) => f.id);
}

/** Files whose name starts with `name` (files_name), by name; at most `limit` (refine the name for more). */
export function findFiles(db: Database.Database, name: string, limit: number): ConsoleFile[] {
  // a range on the index instead of LIKE, which the index cannot serve (case rules, wildcards in names)
  const rows = stmt(db, `SELECT * FROM files WHERE name >= ? AND name < ? ORDER BY name, id LIMIT ?`)
    .all(name, `${name}\u{10FFFF}`, capped(limit)) as RawFile[];
  return withCounts(db, rows);
}

const CONSOLE_SELECT = DOCUMENT_SELECT.replace('SELECT ', 'SELECT d.company AS company, d.kind AS kind, d.customer AS customer, '
  + '(SELECT name FROM files WHERE id = d.file_id) AS file, ');

type RawConsoleDocument = RawDocument & { company: string; kind: string; customer: string | null; file: string };

function toConsoleDocument(r: RawConsoleDocument): ConsoleDocument {
  return { ...toDocumentRow(r), company: r.company, kind: r.kind, file: r.file, customer: r.customer };
}

/** A file's documents in index order (its unique (file_id, idx) index); `after` is the last index shown. */
export function fileDocuments(db: Database.Database, fileId: number, q: { after?: number; limit: number }): Page<ConsoleDocument> {
  const limit = capped(q.limit);
  const rows = stmt(db, `${CONSOLE_SELECT} WHERE d.file_id = ? AND d.idx > ? ORDER BY d.idx LIMIT ?`)
    .all(fileId, q.after ?? -1, limit + 1) as RawConsoleDocument[];
  return paged(rows.map(toConsoleDocument), limit, (d) => d.index);
}

/** In-doubt or failed documents, oldest first (documents_attention); `after` is the last id shown. */
export function attentionDocuments(db: Database.Database, state: 'failed' | 'in-doubt', q: { after?: number; limit: number }): Page<ConsoleDocument> {
  const limit = capped(q.limit);
  // the IN term makes the partial index's condition visible to the planner
  const rows = stmt(db, `${CONSOLE_SELECT} WHERE d.state IN ('in-doubt','failed') AND d.state = ? AND d.id > ? ORDER BY d.id LIMIT ?`)
    .all(state, q.after ?? 0, limit + 1) as RawConsoleDocument[];
  return paged(rows.map(toConsoleDocument), limit, (d) => d.id);
}

/** Documents of a customer (documents_customer), oldest first; `after` is the last id shown. */
export function customerDocuments(db: Database.Database, customer: string, q: { after?: number; limit: number }): Page<ConsoleDocument> {
  const limit = capped(q.limit);
  const rows = stmt(db, `${CONSOLE_SELECT} WHERE d.customer = ? AND d.id > ? ORDER BY d.id LIMIT ?`)
    .all(customer, q.after ?? 0, limit + 1) as RawConsoleDocument[];
  return paged(rows.map(toConsoleDocument), limit, (d) => d.id);
}

/**
 * Documents by number, each an exact lookup on documents_key: the full key (company/kind/prefix/number),
 * or its tail (prefix/number, or PREFIXNUMBER as ERPs print it) completed with every company and kind
 * the ledger holds files of. A suffix match (LIKE '%/…') would read the whole index.
 */
export function keyDocuments(db: Database.Database, text: string, limit: number): ConsoleDocument[] {
  const wanted = text.trim();
  if (wanted === '') return [];
  const tails = new Set<string>([wanted]);
  const glued = /^([^/\d][^/]*?)0*(\d+)$/.exec(wanted); // SETP990000123 → SETP/990000123
  if (glued) tails.add(`${glued[1]}/${glued[2]}`);
  const slash = /^([^/]+)\/0*(\d+)$/.exec(wanted); // leading zeros: the key holds the number as the service counts it
  if (slash) tails.add(`${slash[1]}/${slash[2]}`);
  const keys = new Set<string>(wanted.split('/').length >= 4 ? [wanted] : []);
  const pairs = stmt(db, 'SELECT DISTINCT company, kind FROM files').all() as { company: string; kind: string }[];
  for (const tail of tails) for (const p of pairs) keys.add(`${p.company}/${p.kind}/${tail}`);
  const byKey = stmt(db, `${CONSOLE_SELECT} WHERE d.key = ? ORDER BY d.id LIMIT ?`);
  const out: ConsoleDocument[] = [];
  for (const key of keys) {
    if (out.length >= capped(limit)) break;
    out.push(...(byKey.all(key, capped(limit) - out.length) as RawConsoleDocument[]).map(toConsoleDocument));
  }
  return out;
}

/** One document with its file and every event the ledger recorded of it (events_document), oldest first. */
export function documentHistory(db: Database.Database, id: number): DocumentHistory | undefined {
  const raw = stmt(db, `${CONSOLE_SELECT} WHERE d.id = ?`).get(id) as RawConsoleDocument | undefined;
  if (raw === undefined) return undefined;
  const document = toConsoleDocument(raw);
  const file = stmt(db, 'SELECT * FROM files WHERE id = ?').get(document.fileId) as RawFile | undefined;
  const events = (stmt(db, 'SELECT id, at, type, data FROM events WHERE document_id = ? ORDER BY id LIMIT ?')
    .all(id, EVENTS_MAX + 1) as { id: number; at: number; type: string; data: string | null }[])
    .map((e) => ({ id: e.id, at: e.at, type: e.type, data: parse<unknown>(e.data, null) }));
  return { document, file: file === undefined ? undefined : toFileRow(file), events: events.slice(0, EVENTS_MAX),
    eventsCut: events.length > EVENTS_MAX };
}

/**
 * Received documents of a company, newest recorded first (received_at); `before` is the cursor of the
 * last row shown (`at:documentId`, as `next` gives it).
 */
export function receivedDocuments(db: Database.Database, company: string, q: { before?: string; limit: number }): { rows: ReceivedRow[]; next?: string } {
  const limit = capped(q.limit);
  const cursor = q.before === undefined ? undefined : /^(\d{1,15}):(.*)$/s.exec(q.before);
  const rows = (cursor === undefined || cursor === null
    ? stmt(db, 'SELECT * FROM received WHERE company = ? ORDER BY at DESC, document_id DESC LIMIT ?').all(company, limit + 1)
    : stmt(db, `SELECT * FROM received WHERE company = ? AND (at, document_id) < (?, ?)
      ORDER BY at DESC, document_id DESC LIMIT ?`).all(company, Number(cursor[1]), cursor[2], limit + 1)) as
    { company: string; document_id: string; document_number: string | null; document_date: string | null; files: string; at: number }[];
  const mapped = rows.map((r) => ({ company: r.company, documentId: r.document_id, documentNumber: r.document_number,
    documentDate: r.document_date, files: parse<string[]>(r.files, []), at: r.at }));
  if (mapped.length <= limit) return { rows: mapped };
  const kept = mapped.slice(0, limit);
  const last = kept[kept.length - 1];
  return { rows: kept, next: `${last.at}:${last.documentId}` };
}

/** One received document, for its PDF. */
export function receivedDocument(db: Database.Database, company: string, documentId: string): ReceivedRow | undefined {
  const r = stmt(db, 'SELECT * FROM received WHERE company = ? AND document_id = ?').get(company, documentId) as
    { document_number: string | null; document_date: string | null; files: string; at: number } | undefined;
  return r === undefined ? undefined : { company, documentId, documentNumber: r.document_number, documentDate: r.document_date,
    files: parse<string[]>(r.files, []), at: r.at };
}

/** Every document of the files with this name (or path, or outbox stem), for `edoc-bridge show FILE`: newest file first. */
export function filesNamed(db: Database.Database, name: string): FileRow[] {
  return (stmt(db, 'SELECT * FROM files WHERE name = @n OR path = @n OR report_name = @n ORDER BY id DESC LIMIT 50')
    .all({ n: name }) as RawFile[]).map(toFileRow);
}

/** Documents by state per company, from the per-file counts (file_counts: never the documents). */
export function countsByCompany(db: Database.Database): Map<string, StateCounts> {
  const out = new Map<string, StateCounts>();
  for (const r of stmt(db, `SELECT f.company AS company, c.state AS state, sum(c.n) AS n FROM file_counts c
    JOIN files f ON f.id = c.file_id GROUP BY f.company, c.state`).all() as { company: string; state: DocumentState; n: number }[]) {
    let counts = out.get(r.company);
    if (counts === undefined) {
      counts = emptyCounts();
      out.set(r.company, counts);
    }
    counts[r.state] = r.n;
  }
  return out;
}

/** The read side the console and `show` use, bound to one connection. */
export class ConsoleQueries {
  constructor(private readonly db: Database.Database) {}
  async countsByCompany(): Promise<Map<string, StateCounts>> { return countsByCompany(this.db); }
  async listFiles(q: { state?: FileState; before?: number; limit: number }): Promise<Page<ConsoleFile>> { return listFiles(this.db, q); }
  async findFiles(name: string, limit: number): Promise<ConsoleFile[]> { return findFiles(this.db, name, limit); }
  async file(id: number): Promise<ConsoleFile | undefined> {
    const r = stmt(this.db, 'SELECT * FROM files WHERE id = ?').get(id) as RawFile | undefined;
    return r === undefined ? undefined : withCounts(this.db, [r])[0];
  }
  async filesNamed(name: string): Promise<FileRow[]> { return filesNamed(this.db, name); }
  async fileDocuments(fileId: number, q: { after?: number; limit: number }): Promise<Page<ConsoleDocument>> { return fileDocuments(this.db, fileId, q); }
  async attention(state: 'failed' | 'in-doubt', q: { after?: number; limit: number }): Promise<Page<ConsoleDocument>> {
    return attentionDocuments(this.db, state, q);
  }
  async byCustomer(customer: string, q: { after?: number; limit: number }): Promise<Page<ConsoleDocument>> { return customerDocuments(this.db, customer, q); }
  async byKey(text: string, limit: number): Promise<ConsoleDocument[]> { return keyDocuments(this.db, text, limit); }
  async history(id: number): Promise<DocumentHistory | undefined> { return documentHistory(this.db, id); }
  async received(company: string, q: { before?: string; limit: number }): Promise<{ rows: ReceivedRow[]; next?: string }> {
    return receivedDocuments(this.db, company, q);
  }
  async receivedOne(company: string, documentId: string): Promise<ReceivedRow | undefined> { return receivedDocument(this.db, company, documentId); }
}
