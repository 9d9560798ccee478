import { getFile } from './files.js';
import { DOCUMENT_COLUMNS, toDocumentRow } from './rows.js';
import type { RawDocument } from './rows.js';
import type { SqlReadView } from './sql/executor.js';
import { fileProgress } from './status.js';
import type { LedgerSnapshotPort } from './port.js';
import type { DocumentRow, FileProgress, FileRow } from './types.js';

/** The report's document rows: the body table is read only where the retry file may need the source text. */
const REPORT_SELECT = `SELECT ${DOCUMENT_COLUMNS}, CASE WHEN d.state IN ('rejected','invalid','failed','duplicate')
  THEN (SELECT b.raw FROM document_bodies b WHERE b.id = d.id) ELSE '' END AS raw FROM documents d`;

/**
 * A consistent read-only view of the ledger for one report, on a connection of its own (SqlReadView:
 * SQLite's WAL lets it read while the writer commits; PostgreSQL's REPEATABLE READ READ ONLY). The
 * report streams 200,000 documents across awaits: on a private connection that blocks nobody, and one
 * read transaction keeps counts and documents in agreement.
 */
export class LedgerSnapshot implements LedgerSnapshotPort {
  constructor(private readonly view: SqlReadView) {}

  file(fileId: number): Promise<FileRow | undefined> {
    return getFile(this.view, fileId);
  }

  fileProgress(fileId: number): Promise<FileProgress> {
    return fileProgress(this.view, fileId);
  }

  /**
   * Documents in index order; stream them, do not collect them. For the report: `raw` (the source text,
   * a few KB each) is read only for the states whose originals may go to the retry file (rejected,
   * invalid, failed, and a duplicate that is a number clash); '' for the others (accepted, pending,
   * sending, in-doubt), which no report writes out.
   */
  async *iterateFileDocuments(fileId: number): AsyncGenerator<DocumentRow> {
    for await (const page of this.view.pages<RawDocument>(
      `${REPORT_SELECT} WHERE d.file_id = ? ORDER BY d.idx`,
      [fileId],
    )) {
      for (const r of page) yield toDocumentRow(r);
    }
  }

  close(): Promise<void> {
    return this.view.close();
  }
}
