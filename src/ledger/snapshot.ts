import Database from 'better-sqlite3';
import { getFile } from './files.js';
import { DOCUMENT_COLUMNS, toDocumentRow } from './rows.js';
import type { RawDocument } from './rows.js';
import { fileProgress } from './status.js';
import type { LedgerSnapshotPort } from './port.js';
import type { DocumentRow, FileProgress, FileRow } from './types.js';

/** The report's document rows: the body table is read only where the retry file may need the source text. */
const REPORT_SELECT = `SELECT ${DOCUMENT_COLUMNS}, CASE WHEN d.state IN ('rejected','invalid','failed','duplicate')
  THEN (SELECT b.raw FROM document_bodies b WHERE b.id = d.id) ELSE '' END AS raw FROM documents d`;

/**
 * A consistent read-only view of the ledger on its own connection (WAL lets it read while the writer
 * commits). The report streams 200,000 documents through `.iterate()` across awaits: on a private
 * connection that blocks nobody, and one read transaction keeps counts and documents in agreement.
 */
export class LedgerSnapshot implements LedgerSnapshotPort {
  private readonly db: Database.Database;
  private closed = false;

  constructor(dbPath: string) {
    this.db = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: 5000 });
    this.db.exec('BEGIN');
    // a deferred BEGIN takes its snapshot at the first read
    this.db.prepare('SELECT 1 FROM files LIMIT 1').get();
  }

  async file(fileId: number): Promise<FileRow | undefined> {
    return getFile(this.db, fileId);
  }

  async fileProgress(fileId: number): Promise<FileProgress> {
    return fileProgress(this.db, fileId);
  }

  /**
   * Documents in index order; stream them, do not collect them. For the report: `raw` (the source text,
   * a few KB each) is read only for the states whose originals may go to the retry file (rejected,
   * invalid, failed, and a duplicate that is a number clash); '' for the others (accepted, pending,
   * sending, in-doubt), which no report writes out.
   */
  async *iterateFileDocuments(fileId: number): AsyncGenerator<DocumentRow> {
    const it = this.db.prepare(`${REPORT_SELECT} WHERE d.file_id = ? ORDER BY d.idx`)
      .iterate(fileId) as IterableIterator<RawDocument>;
    for (const r of it) yield toDocumentRow(r);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } finally {
      this.db.close();
    }
  }
}
