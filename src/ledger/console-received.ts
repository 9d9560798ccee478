/**
 * The console's received-document queries (ledger/console-queries.ts): a company's received documents,
 * newest recorded first, and one of them.
 */
import { parse } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';
import { capped, type ReceivedRow } from './console-rows.js';

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
