/**
 * The ledger's event log (the `events` table): one row per thing that happened to a file or a document,
 * written in the transaction of the change it records.
 */
import { json } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';

export async function addEvent(q: SqlExecutor, at: number, type: string, fileId: number | null,
  documentId: number | null, data?: unknown): Promise<void> {
  await q.run('INSERT INTO events(at, file_id, document_id, type, data) VALUES (?, ?, ?, ?, ?)', [at, fileId, documentId, type, json(data)]);
}

export interface LedgerEvent {
  at: number;
  type: string;
  fileId: number | null;
  documentId: number | null;
  data?: unknown;
}

/**
 * Several events in order. On PostgreSQL one statement for all of them (a round trip per event would
 * be most of a verdict batch's cost); SQLite, in process, inserts them one by one, which is as cheap.
 */
export async function addEvents(q: SqlExecutor, events: readonly LedgerEvent[]): Promise<void> {
  if (q.dialect === 'sqlite' || events.length < 2) {
    for (const e of events) await addEvent(q, e.at, e.type, e.fileId, e.documentId, e.data);
    return;
  }
  await q.run(`INSERT INTO events(at, file_id, document_id, type, data) SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS BIGINT[]),
    CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]))`, [events.map((e) => e.at), events.map((e) => e.fileId),
    events.map((e) => e.documentId), events.map((e) => e.type), events.map((e) => json(e.data))]);
}
