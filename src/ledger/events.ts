/**
 * The ledger's event log (the `events` table): one row per thing that happened to a file or a document,
 * written in the transaction of the change it records.
 */
import { json } from './rows.js';
import { valuesTable } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';

export async function addEvent(
  q: SqlExecutor,
  at: number,
  type: string,
  fileId: number | null,
  documentId: number | null,
  data?: unknown,
): Promise<void> {
  await q.run('INSERT INTO events(at, file_id, document_id, type, data) VALUES (?, ?, ?, ?, ?)', [
    at,
    fileId,
    documentId,
    type,
    json(data),
  ]);
}

export interface LedgerEvent {
  at: number;
  type: string;
  fileId: number | null;
  documentId: number | null;
  data?: unknown;
}

const EVENT_COLUMNS = [
  ['e_at', 'BIGINT'],
  ['e_file', 'BIGINT'],
  ['e_doc', 'BIGINT'],
  ['e_type', 'TEXT'],
  ['e_data', 'TEXT'],
] as const;

/** Several events, in order, in ONE statement (a verdict batch's events: one statement, not one per document). */
export async function addEvents(q: SqlExecutor, events: readonly LedgerEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (events.length === 1) {
    const e = events[0]!;
    await addEvent(q, e.at, e.type, e.fileId, e.documentId, e.data);
    return;
  }
  const rows = valuesTable(
    q,
    EVENT_COLUMNS,
    events.map((e) => [e.at, e.fileId, e.documentId, e.type, json(e.data)]),
  );
  await q.run(
    `INSERT INTO events(at, file_id, document_id, type, data) SELECT e_at, e_file, e_doc, e_type, e_data FROM ${rows.sql} AS v`,
    rows.params,
  );
}
