/**
 * The console's document queries (ledger/console-queries.ts): a file's documents, the in-doubt and
 * failed, a customer's, by key, and one document's history.
 */
import { DOCUMENT_SELECT, parse, toDocumentRow, toFileRow } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';
import type { RawDocument, RawFile } from './rows.js';
import {
  capped,
  paged,
  type ConsoleDocument,
  type DocumentHistory,
  type Page,
} from './console-rows.js';

const EVENTS_MAX = 1000;

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
