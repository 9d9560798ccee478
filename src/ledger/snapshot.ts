import Database from 'better-sqlite3';
import { getFile } from './files.js';
import { DOCUMENT_SELECT, toDocumentRow } from './rows.js';
import type { RawDocument } from './rows.js';
import { fileProgress } from './status.js';
import type { DocumentRow, FileProgress, FileRow } from './types.js';

/**
 * A consistent read-only view of the ledger on its own connection (WAL lets it read while the writer
 * commits). The report streams 200,000 documents through `.iterate()` across awaits: on a private
 * connection that blocks nobody, and one read transaction keeps counts and documents in agreement.
 */
export class LedgerSnapshot {
  private readonly db: Database.Database;
  private closed = false;

  constructor(dbPath: string) {
    this.db = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: 5000 });
    this.db.exec('BEGIN');
    // a deferred BEGIN takes its snapshot at the first read
    this.db.prepare('SELECT 1 FROM files LIMIT 1').get();
  }

  file(fileId: number): FileRow | undefined {
    return getFile(this.db, fileId);
  }

  fileProgress(fileId: number): FileProgress {
    return fileProgress(this.db, fileId);
  }

  /** Documents in index order; stream them, do not collect them. */
  *iterateFileDocuments(fileId: number): Generator<DocumentRow> {
    const it = this.db.prepare(`${DOCUMENT_SELECT} WHERE d.file_id = ? ORDER BY d.idx`)
      .iterate(fileId) as IterableIterator<RawDocument>;
    for (const r of it) yield toDocumentRow(r);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } finally {
      this.db.close();
    }
  }
}
