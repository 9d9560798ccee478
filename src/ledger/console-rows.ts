/**
 * The shapes the operator console and `edoc-bridge show` read (ledger/console-queries.ts), and the
 * paging every list shares: keyset-paged on ids (never OFFSET), at most MAX_PAGE rows a page.
 */
import type { DocumentRow, FileRow, StateCounts } from './types.js';

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

export function capped(limit: number): number {
  return Math.max(1, Math.min(MAX_PAGE, Math.floor(limit)));
}

export function paged<T>(rows: T[], limit: number, cursor: (row: T) => number): Page<T> {
  if (rows.length <= limit) return { rows };
  const kept = rows.slice(0, limit);
  return { rows: kept, next: cursor(kept[kept.length - 1]) };
}
