import type Database from 'better-sqlite3';
import { stmt } from './rows.js';
import type { ReceivedRecord } from './types.js';

/** The received-documents cursor of a company (opaque to the ledger). */
export function getCursor(db: Database.Database, company: string): string | undefined {
  const r = stmt(db, 'SELECT value FROM kv WHERE key = ?').get(`cursor:${company}`) as { value: string } | undefined;
  return r?.value;
}

export function setCursor(db: Database.Database, company: string, cursor: string, now: number): void {
  stmt(db, `INSERT INTO kv(key, value, updated_at) VALUES (?, ?, ?)
    ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`).run(`cursor:${company}`, cursor, now);
}

/** Remembers the last pull of a company (shown by `edoc-bridge status`). */
export function recordPull(db: Database.Database, company: string, at: number, data?: unknown): void {
  stmt(db, `INSERT INTO kv(key, value, updated_at) VALUES (?, ?, ?)
    ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`)
    .run(`pull:${company}`, JSON.stringify({ at, data: data ?? null }), at);
}

export function seenReceived(db: Database.Database, company: string, documentId: string): boolean {
  return stmt(db, 'SELECT 1 FROM received WHERE company = ? AND document_id = ?').get(company, documentId) !== undefined;
}

/** Returns false when the document was already recorded (the first record stands). */
export function recordReceived(db: Database.Database, r: ReceivedRecord): boolean {
  return stmt(db, `INSERT INTO received(company, document_id, document_number, document_date, files, at)
    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(company, document_id) DO NOTHING`)
    .run(r.company, r.documentId, r.documentNumber ?? null, r.documentDate ?? null, JSON.stringify(r.files), r.at).changes === 1;
}
