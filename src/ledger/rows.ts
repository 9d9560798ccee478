import { parseKind } from '../kinds/index.js';
import type { SqlExecutor } from './sql/executor.js';
import type {
  DocumentRow,
  DocumentState,
  FileRow,
  FileState,
  ReportState,
  StateCounts,
} from './types.js';

export function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** The warnings stored on document `id` (none: an empty list). */
export async function storedWarnings(tx: SqlExecutor, id: number): Promise<string[]> {
  const row = await tx.get<{ warnings: string | null }>(
    'SELECT warnings FROM documents WHERE id = ?',
    [id],
  );
  return parse<string[]>(row?.warnings ?? null, []);
}

export function parse<T>(text: unknown, fallback: T): T {
  return typeof text === 'string' ? (JSON.parse(text) as T) : fallback;
}

export function emptyCounts(): StateCounts {
  return {
    pending: 0,
    sending: 0,
    accepted: 0,
    rejected: 0,
    invalid: 0,
    failed: 0,
    duplicate: 0,
    'in-doubt': 0,
  };
}

export interface RawFile {
  id: number;
  path: string;
  name: string;
  report_name: string;
  size: number;
  sha256: string;
  kind: string;
  company: string;
  format: string | null;
  encoding: string | null;
  header: string | null;
  state: string;
  error: string | null;
  total: number | null;
  duplicate_of: number | null;
  started_at: number;
  finished_at: number | null;
  archived_path: string | null;
  report_state: string;
  outbox_dir: string | null;
  archive: number | null;
  report_dir: string | null;
}

export function toFileRow(r: RawFile): FileRow {
  return {
    id: r.id,
    path: r.path,
    name: r.name,
    reportName: r.report_name,
    size: r.size,
    sha256: r.sha256,
    kind: parseKind(r.kind, `ledger file ${r.id}`),
    company: r.company,
    format: r.format,
    encoding: r.encoding,
    header: r.header,
    state: r.state as FileState,
    error: parse(r.error, null),
    total: r.total,
    duplicateOf: r.duplicate_of,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    archivedPath: r.archived_path,
    reportState: r.report_state as ReportState,
    outboxDir: r.outbox_dir,
    archive: r.archive === null ? null : r.archive === 1,
    reportDir: r.report_dir,
  };
}

export interface RawDocument {
  id: number;
  file_id: number;
  idx: number;
  source: string;
  key: string | null;
  own_number: number;
  state: string;
  attempts: number;
  next_attempt_at: number | null;
  result_code: string | null;
  http_status: number | null;
  errors: string | null;
  warnings: string | null;
  problems: string | null;
  response: string | null;
  raw: string;
  updated_at: number;
  doubt: string | null;
  maybe_delivered: number;
}

const COLUMNS = [
  'id',
  'file_id',
  'idx',
  'source',
  'key',
  'own_number',
  'state',
  'attempts',
  'next_attempt_at',
  'result_code',
  'http_status',
  'errors',
  'warnings',
  'problems',
  'response',
  'updated_at',
  'doubt',
  'maybe_delivered',
];

/** The `documents d` columns `toDocumentRow` reads (all but `raw`). */
export const DOCUMENT_COLUMNS = COLUMNS.map((c) => `d.${c}`).join(', ');
/** What `toDocumentRow` reads, from `DOCUMENT_FROM`. */
export const DOCUMENT_FIELDS = `${DOCUMENT_COLUMNS}, b.raw AS raw`;
/** The source text lives in its own table (written once; see migration 2). Filter and order on `d.`. */
export const DOCUMENT_FROM = 'FROM documents d JOIN document_bodies b ON b.id = d.id';
export const DOCUMENT_SELECT = `SELECT ${DOCUMENT_FIELDS} ${DOCUMENT_FROM}`;

export function toDocumentRow(r: RawDocument): DocumentRow {
  return {
    id: r.id,
    fileId: r.file_id,
    index: r.idx,
    source: parse(r.source, {}),
    key: r.key,
    ownNumber: r.own_number === 1,
    state: r.state as DocumentState,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    resultCode: r.result_code,
    httpStatus: r.http_status,
    errors: parse(r.errors, []),
    warnings: parse(r.warnings, []),
    problems: parse(r.problems, []),
    response: parse(r.response, null),
    raw: r.raw,
    updatedAt: r.updated_at,
    doubt:
      r.state === 'in-doubt'
        ? r.doubt === 'repeated-number'
          ? 'repeated-number'
          : 'no-answer'
        : null,
    maybeDelivered: r.maybe_delivered === 1,
  };
}

/** The ledger key of a document: `company/kind/prefix/number` when `number` is `prefix/number`. */
export function makeKey(company: string, kind: string, number: string): string {
  return `${company}/${kind}/${number}`;
}
