/**
 * What the operator console (http/console/) and `edoc-bridge show` read: small paged queries, each on
 * an index, so a page costs the same with ten documents or a million (docs/operations.md has the
 * figures). Lists are keyset-paged on ids (never OFFSET) and capped at MAX_PAGE rows.
 */
import type { SqlExecutor } from './sql/executor.js';
import type { RawFile } from './rows.js';
import type { FileRow, FileState, StateCounts } from './types.js';
import { countsByCompany, filesNamed, findFiles, listFiles, withCounts } from './console-files.js';
import {
  attentionDocuments,
  customerDocuments,
  documentHistory,
  fileDocuments,
  keyDocuments,
} from './console-documents.js';
import { receivedDocument, receivedDocuments } from './console-received.js';
import type {
  ConsoleDocument,
  ConsoleFile,
  DocumentHistory,
  Page,
  ReceivedRow,
} from './console-rows.js';

export { MAX_PAGE } from './console-rows.js';
export type {
  ConsoleDocument,
  ConsoleFile,
  DocumentEvent,
  DocumentHistory,
  Page,
  ReceivedRow,
} from './console-rows.js';

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
