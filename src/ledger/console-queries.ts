/**
 * What the operator console (http/console/) and `edoc-bridge show` read: small paged queries, each on
 * an index, so a page costs the same with ten documents or a million (docs/operations.md has the
 * figures). Lists are keyset-paged on ids (never OFFSET) and capped at MAX_PAGE rows.
 */
import { DOCUMENT_SELECT, emptyCounts, parse, toDocumentRow, toFileRow } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';
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

async function withCounts(db: SqlExecutor, rows: RawFile[]): Promise<ConsoleFile[]> {
  const out: ConsoleFile[] = [];
  for (const r of rows) {
    const c = emptyCounts();
    for (const s of await db.all<{ state: DocumentState; n: number }>(
      'SELECT state, n FROM file_counts WHERE file_id = ?',
      [r.id],
    ))
      c[s.state] = s.n;
    out.push({ ...toFileRow(r), counts: c });
  }
  return out;
}

/** Files newest first, of one state or all (files_state / the primary key); `before` is the cursor. */
export async function listFiles(
  db: SqlExecutor,
  q: { state?: FileState; before?: number; limit: number },
): Promise<Page<ConsoleFile>> {
  const limit = capped(q.limit);
  const before = q.before ?? Number.MAX_SAFE_INTEGER;
  const rows =
    q.state === undefined
      ? await db.all<RawFile>('SELECT * FROM files WHERE id < ? ORDER BY id DESC LIMIT ?', [
          before,
          limit + 1,
        ])
      : await db.all<RawFile>(
          'SELECT * FROM files WHERE state = ? AND id < ? ORDER BY id DESC LIMIT ?',
          [q.state, before, limit + 1],
        );
  return paged(await withCounts(db, rows), limit, (f) => f.id);
}

/** Files whose name starts with `name` (files_name), by name; at most `limit` (refine the name for more). */
export async function findFiles(
  db: SqlExecutor,
  name: string,
  limit: number,
): Promise<ConsoleFile[]> {
  // a range on the index instead of LIKE, which the index cannot serve (case rules, wildcards in names);
  // names compare byte by byte in both backends (PostgreSQL: collation "C", pg-migrations step 5)
  const rows = await db.all<RawFile>(
    `SELECT * FROM files WHERE name >= ? AND name < ? ORDER BY name, id LIMIT ?`,
    [name, `${name}\u{10FFFF}`, capped(limit)],
  );
  return withCounts(db, rows);
}

const CONSOLE_SELECT = DOCUMENT_SELECT.replace(
  'SELECT ',
  'SELECT d.company AS company, d.kind AS kind, d.customer AS customer, ' +
    '(SELECT name FROM files WHERE id = d.file_id) AS file, ',
);

type RawConsoleDocument = RawDocument & {
  company: string;
  kind: string;
  customer: string | null;
  file: string;
};

function toConsoleDocument(r: RawConsoleDocument): ConsoleDocument {
  return {
    ...toDocumentRow(r),
    company: r.company,
    kind: r.kind,
    file: r.file,
    customer: r.customer,
  };
}

/** A file's documents in index order (its unique (file_id, idx) index); `after` is the last index shown. */
export async function fileDocuments(
  db: SqlExecutor,
  fileId: number,
  q: { after?: number; limit: number },
): Promise<Page<ConsoleDocument>> {
  const limit = capped(q.limit);
  const rows = await db.all<RawConsoleDocument>(
    `${CONSOLE_SELECT} WHERE d.file_id = ? AND d.idx > ? ORDER BY d.idx LIMIT ?`,
    [fileId, q.after ?? -1, limit + 1],
  );
  return paged(rows.map(toConsoleDocument), limit, (d) => d.index);
}

/** In-doubt or failed documents, oldest first (documents_attention); `after` is the last id shown. */
export async function attentionDocuments(
  db: SqlExecutor,
  state: 'failed' | 'in-doubt',
  q: { after?: number; limit: number },
): Promise<Page<ConsoleDocument>> {
  const limit = capped(q.limit);
  // the IN term makes the partial index's condition visible to the planner
  const rows = await db.all<RawConsoleDocument>(
    `${CONSOLE_SELECT} WHERE d.state IN ('in-doubt','failed') AND d.state = ? AND d.id > ?
    ORDER BY d.id LIMIT ?`,
    [state, q.after ?? 0, limit + 1],
  );
  return paged(rows.map(toConsoleDocument), limit, (d) => d.id);
}

/** Documents of a customer (documents_customer), oldest first; `after` is the last id shown. */
export async function customerDocuments(
  db: SqlExecutor,
  customer: string,
  q: { after?: number; limit: number },
): Promise<Page<ConsoleDocument>> {
  const limit = capped(q.limit);
  const rows = await db.all<RawConsoleDocument>(
    `${CONSOLE_SELECT} WHERE d.customer = ? AND d.id > ? ORDER BY d.id LIMIT ?`,
    [customer, q.after ?? 0, limit + 1],
  );
  return paged(rows.map(toConsoleDocument), limit, (d) => d.id);
}

/**
 * Documents by number, each an exact lookup on documents_key: the full key (company/kind/prefix/number),
 * or its tail (prefix/number, or PREFIXNUMBER as ERPs print it) completed with every company and kind
 * the ledger holds files of. A suffix match (LIKE '%/…') would read the whole index.
 */
export async function keyDocuments(
  db: SqlExecutor,
  text: string,
  limit: number,
): Promise<ConsoleDocument[]> {
  const wanted = text.trim();
  if (wanted === '') return [];
  const tails = new Set<string>([wanted]);
  const glued = /^([^/\d][^/]*?)0*(\d+)$/.exec(wanted); // SETP990000123 → SETP/990000123
  if (glued) tails.add(`${glued[1]}/${glued[2]}`);
  const slash = /^([^/]+)\/0*(\d+)$/.exec(wanted); // leading zeros: the key holds the number as the service counts it
  if (slash) tails.add(`${slash[1]}/${slash[2]}`);
  const keys = new Set<string>(wanted.split('/').length >= 4 ? [wanted] : []);
  const pairs = await db.all<{ company: string; kind: string }>(
    'SELECT DISTINCT company, kind FROM files',
  );
  for (const tail of tails) for (const p of pairs) keys.add(`${p.company}/${p.kind}/${tail}`);
  const out: ConsoleDocument[] = [];
  for (const key of keys) {
    if (out.length >= capped(limit)) break;
    out.push(
      ...(
        await db.all<RawConsoleDocument>(
          `${CONSOLE_SELECT} WHERE d.key = ? ORDER BY d.id LIMIT ?`,
          [key, capped(limit) - out.length],
        )
      ).map(toConsoleDocument),
    );
  }
  return out;
}

/** One document with its file and every event the ledger recorded of it (events_document), oldest first. */
export async function documentHistory(
  db: SqlExecutor,
  id: number,
): Promise<DocumentHistory | undefined> {
  const raw = await db.get<RawConsoleDocument>(`${CONSOLE_SELECT} WHERE d.id = ?`, [id]);
  if (raw === undefined) return undefined;
  const document = toConsoleDocument(raw);
  const file = await db.get<RawFile>('SELECT * FROM files WHERE id = ?', [document.fileId]);
  const events = (
    await db.all<{ id: number; at: number; type: string; data: string | null }>(
      'SELECT id, at, type, data FROM events WHERE document_id = ? ORDER BY id LIMIT ?',
      [id, EVENTS_MAX + 1],
    )
  ).map((e) => ({ id: e.id, at: e.at, type: e.type, data: parse<unknown>(e.data, null) }));
  return {
    document,
    file: file === undefined ? undefined : toFileRow(file),
    events: events.slice(0, EVENTS_MAX),
    eventsCut: events.length > EVENTS_MAX,
  };
}

/**
 * Received documents of a company, newest recorded first (received_at); `before` is the cursor of the
 * last row shown (`at:documentId`, as `next` gives it).
 */
export async function receivedDocuments(
  db: SqlExecutor,
  company: string,
  q: { before?: string; limit: number },
): Promise<{ rows: ReceivedRow[]; next?: string }> {
  const limit = capped(q.limit);
  const cursor = q.before === undefined ? undefined : /^(\d{1,15}):(.*)$/s.exec(q.before);
  type Row = {
    company: string;
    document_id: string;
    document_number: string | null;
    document_date: string | null;
    files: string;
    at: number;
  };
  // document ids compare byte by byte in both backends (PostgreSQL: collation "C", pg-migrations step 5)
  const rows =
    cursor === undefined || cursor === null
      ? await db.all<Row>(
          'SELECT * FROM received WHERE company = ? ORDER BY at DESC, document_id DESC LIMIT ?',
          [company, limit + 1],
        )
      : await db.all<Row>(
          `SELECT * FROM received WHERE company = ? AND (at, document_id) < (CAST(? AS BIGINT), CAST(? AS TEXT))
      ORDER BY at DESC, document_id DESC LIMIT ?`,
          [company, Number(cursor[1]), cursor[2], limit + 1],
        );
  const mapped = rows.map((r) => ({
    company: r.company,
    documentId: r.document_id,
    documentNumber: r.document_number,
    documentDate: r.document_date,
    files: parse<string[]>(r.files, []),
    at: r.at,
  }));
  if (mapped.length <= limit) return { rows: mapped };
  const kept = mapped.slice(0, limit);
  const last = kept[kept.length - 1];
  return { rows: kept, next: `${last.at}:${last.documentId}` };
}

/** One received document, for its PDF. */
export async function receivedDocument(
  db: SqlExecutor,
  company: string,
  documentId: string,
): Promise<ReceivedRow | undefined> {
  const r = await db.get<{
    document_number: string | null;
    document_date: string | null;
    files: string;
    at: number;
  }>('SELECT * FROM received WHERE company = ? AND document_id = ?', [company, documentId]);
  return r === undefined
    ? undefined
    : {
        company,
        documentId,
        documentNumber: r.document_number,
        documentDate: r.document_date,
        files: parse<string[]>(r.files, []),
        at: r.at,
      };
}

/** Every document of the files with this name (or path, or outbox stem), for `edoc-bridge show FILE`: newest file first. */
export async function filesNamed(db: SqlExecutor, name: string): Promise<FileRow[]> {
  return (
    await db.all<RawFile>(
      'SELECT * FROM files WHERE name = ? OR path = ? OR report_name = ? ORDER BY id DESC LIMIT 50',
      [name, name, name],
    )
  ).map(toFileRow);
}

/** Documents by state per company, from the per-file counts (file_counts: never the documents). */
export async function countsByCompany(db: SqlExecutor): Promise<Map<string, StateCounts>> {
  const out = new Map<string, StateCounts>();
  for (const r of await db.all<{
    company: string;
    state: DocumentState;
    n: number;
  }>(`SELECT f.company AS company, c.state AS state,
    CAST(sum(c.n) AS BIGINT) AS n FROM file_counts c JOIN files f ON f.id = c.file_id GROUP BY f.company, c.state`)) {
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
  constructor(private readonly db: SqlExecutor) {}
  async countsByCompany(): Promise<Map<string, StateCounts>> {
    return countsByCompany(this.db);
  }
  async listFiles(q: {
    state?: FileState;
    before?: number;
    limit: number;
  }): Promise<Page<ConsoleFile>> {
    return listFiles(this.db, q);
  }
  async findFiles(name: string, limit: number): Promise<ConsoleFile[]> {
    return findFiles(this.db, name, limit);
  }
  async file(id: number): Promise<ConsoleFile | undefined> {
    const r = await this.db.get<RawFile>('SELECT * FROM files WHERE id = ?', [id]);
    return r === undefined ? undefined : (await withCounts(this.db, [r]))[0];
  }
  async filesNamed(name: string): Promise<FileRow[]> {
    return filesNamed(this.db, name);
  }
  async fileDocuments(
    fileId: number,
    q: { after?: number; limit: number },
  ): Promise<Page<ConsoleDocument>> {
    return fileDocuments(this.db, fileId, q);
  }
  async attention(
    state: 'failed' | 'in-doubt',
    q: { after?: number; limit: number },
  ): Promise<Page<ConsoleDocument>> {
    return attentionDocuments(this.db, state, q);
  }
  async byCustomer(
    customer: string,
    q: { after?: number; limit: number },
  ): Promise<Page<ConsoleDocument>> {
    return customerDocuments(this.db, customer, q);
  }
  async byKey(text: string, limit: number): Promise<ConsoleDocument[]> {
    return keyDocuments(this.db, text, limit);
  }
  async history(id: number): Promise<DocumentHistory | undefined> {
    return documentHistory(this.db, id);
  }
  async received(
    company: string,
    q: { before?: string; limit: number },
  ): Promise<{ rows: ReceivedRow[]; next?: string }> {
    return receivedDocuments(this.db, company, q);
  }
  async receivedOne(company: string, documentId: string): Promise<ReceivedRow | undefined> {
    return receivedDocument(this.db, company, documentId);
  }
}
