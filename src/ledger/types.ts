/** Shapes the ledger stores and returns. Times are epoch milliseconds. */
import type { ReferenceOutcome } from './reference-outcome.js';
import type { DocumentKind } from '../kinds/index.js';

export type FileState = 'reading' | 'open' | 'done' | 'failed-read';

export type DocumentState =
  'pending' | 'sending' | 'accepted' | 'rejected' | 'invalid' | 'failed' | 'duplicate' | 'in-doubt';

/** States after which nothing more happens to a document without an operator. */
export const FINAL_STATES: readonly DocumentState[] = [
  'accepted',
  'rejected',
  'invalid',
  'failed',
  'duplicate',
  'in-doubt',
];

export type ReportState = 'none' | 'partial' | 'final';

/**
 * Why an `in-doubt` document is in doubt: `no-answer` (sent without its own number and no verdict came
 * back) or `repeated-number` (the service answered Regla 90 and an earlier attempt of ours with that
 * number may have delivered it: confirm at the authority, then `resolve --issued` or `--not-ours`).
 */
export type DoubtReason = 'no-answer' | 'repeated-number';

/** One problem of a document: mapping, validation or a service message. */
export interface ReportProblem {
  code?: string;
  field?: string;
  value?: string;
  rows?: number[];
  message: string;
}

export interface SourcePosition {
  rows?: number[];
  lines?: number[];
  /**
   * CSV: the export's own key columns joined (`SETP990000101`), kept for a document that has no
   * ledger key (its request could not be built), so errors.csv can still name it as the ERP does.
   */
  erpKey?: string;
}

export interface FileError {
  code: string;
  message: string;
  /** Where the reader knew it: the column(s) or field at fault, and the CSV rows or JSON lines. */
  field?: string;
  rows?: number[];
  lines?: number[];
  /** The cell at fault, where one is (EDOC_MAP_FORMAT_MISMATCH). */
  value?: string;
}

export interface RecordFileInput {
  path: string;
  /** Input file name as dropped (basename). */
  name: string;
  size: number;
  sha256: string;
  kind: DocumentKind;
  company: string;
  now: number;
  /** Where its reports go (`outbox/<kind>` or `outbox/<company>/<kind>`). */
  outboxDir?: string;
  /** Its original moves to the archive once final (it came from an inbox folder). */
  archive?: boolean;
  /** The name's bytes as the file system held them (hex), when they were not UTF-8 and the file was renamed. */
  originalName?: string;
}

export interface RecordFileResult {
  fileId: number;
  /**
   * `new`: process it. `resumed`: the same path and content were left unfinished by an earlier run
   * (not archived): continue with `state` (re-read when `reading`, the ledger ignores indexes it has).
   * `duplicate`: the same content for the same company and kind was taken before; not sent again.
   */
  outcome: 'new' | 'resumed' | 'duplicate';
  state: FileState;
  duplicateOfFileId?: number;
  /**
   * The file recorded last from this path held other content, and its documents were released: that
   * file changed after sending began. It now carries the EDOC_READ_CHANGED_AFTER_SEND error.
   */
  changedAfterSend?: { fileId: number; reportName: string; newlyFlagged: boolean };
}

export interface FileRow {
  id: number;
  path: string;
  name: string;
  /** Sanitised stem of the outbox names (`<reportName>.result.json`), fixed when the file is recorded. */
  reportName: string;
  size: number;
  sha256: string;
  kind: DocumentKind;
  company: string;
  format: string | null;
  encoding: string | null;
  header: string | null;
  state: FileState;
  error: FileError | null;
  total: number | null;
  duplicateOf: number | null;
  startedAt: number;
  finishedAt: number | null;
  archivedPath: string | null;
  reportState: ReportState;
  /** The outbox folder of its reports and whether its original is archived, fixed when recorded (null: older ledger). */
  outboxDir: string | null;
  archive: boolean | null;
  /**
   * Set once a later file took over its outbox names: its reports were moved to this folder (the
   * archive beside its original) under `reportName`, and are rewritten there. Null: in `outboxDir`.
   */
  reportDir: string | null;
}

export interface NewDocument {
  index: number;
  source: SourcePosition;
  /** The kind it is sent as, when the mapping routed it (one export, several kinds); absent: the file's kind. */
  kind?: DocumentKind;
  /**
   * The document's own number as `prefix/number` (from validate's `documentKey`), else null; the
   * ledger key is then `company/kind/prefix/number`, the same string as validate's `formatKey`.
   * `numberField`: where it was read (the export's column, else the request's path); not stored.
   */
  number?: string | null;
  numberField?: string;
  /** The document carries its own number (safe to resend after a crash). */
  ownNumber: boolean;
  /** The request, stored as `JSON.stringify(request)` unless `requestText` or `requestFromRaw` gives its text. */
  request?: unknown;
  /** `JSON.stringify(request)` when the caller made it already (intake's secret check): stored as is, not made twice. */
  requestText?: string;
  /** With `requestFromRaw`: `raw` is exactly `JSON.stringify(request)` too (no blank, escape or number written otherwise). */
  rawIsRequestText?: boolean;
  raw: string;
  /**
   * The request is exactly `JSON.parse(raw)`: only `raw` is stored, and the request is read back from it
   * (`request` itself may then be absent: the intake worker does not hand the parsed request over).
   */
  requestFromRaw?: boolean;
  /** Mapping / validation problems; a document with problems is stored `invalid` and never sent. */
  problems?: ReportProblem[];
  /** The other party's identification (the kind's descriptor's `customer`), for the console's search. */
  customer?: string | null;
  /** The request's summary (kinds/content-summary.ts, JSON): tells a corrected copy of an issued number (EDOC_ISSUED_OTHER_CONTENT). */
  content?: string | null;
  /** A note's referenced documents, prefix and number written together as in its request (kinds/references.ts). */
  references?: string[];
  /**
   * A document the service numbers: the ERP's key for it (the mapping's key columns, as JSON). One issued,
   * or on its way, under the same company, kind and ERP key is this document again (ledger/erp-keys.ts).
   */
  erpKey?: string;
}

export interface InsertResult {
  inserted: number;
  invalid: number;
  duplicate: number;
  /** Indexes settled by an earlier copy of the same content (a resend), with the state they got. */
  byEarlierCopy?: { index: number; state: 'duplicate' | 'invalid' }[];
  /**
   * Indexes stored `duplicate` because their key was accepted already, with the file of the accepted document;
   * `otherContent`: what was issued differs from this document (EDOC_ISSUED_OTHER_CONTENT, its message).
   */
  byAcceptedKey?: { index: number; fileId: number; otherContent?: string }[];
  /** Notes whose references held them, made them wait or were not known (reference-outcome.ts). */
  byReference?: ReferenceOutcome[];
  /** Documents held because the same file content was taken for another company (EDOC_LEDGER_OTHER_COMPANY, its message). */
  heldForOtherCompany?: { count: number; message: string };
}

export interface DueDocument {
  id: number;
  fileId: number;
  /** The input file's name (POS `tipo`, log lines): read with the document, so the sender needs no second lookup. */
  fileName: string;
  index: number;
  company: string;
  kind: DocumentKind;
  key: string | null;
  ownNumber: boolean;
  attempts: number;
  /** The request, parsed from its stored text when first read (a send of `requestText` never reads it). */
  readonly request: unknown;
  /** The stored request text where it is exactly `JSON.stringify(request)`: what is sent, as is. */
  requestText?: string;
  /**
   * The last recorded outcome (`null` before the first attempt). `{ kind: 'unknown' }` means an earlier
   * request may have reached the service, so a `duplicate` verdict now means it was accepted then.
   */
  lastOutcome: unknown;
  /** An attempt of this document may have reached the service (sticky ledger fact, migration 4). */
  maybeDelivered: boolean;
  /** The bridge's own warnings of it (`EDOC_…: text`, such as a note's unknown reference): kept in each verdict. */
  warnings?: string[];
}

export interface MarkSendingResult {
  /** Now `sending`, attempts incremented: send exactly these. */
  sending: number[];
  /** Their key was accepted meanwhile: stored `duplicate`, do not send. */
  duplicate: number[];
  /** Of `duplicate`: what was issued differs from them (EDOC_ISSUED_OTHER_CONTENT), by id, with its message. */
  otherContent?: Map<number, string>;
  /** No longer pending (requeued, settled): skip. */
  skipped: number[];
  /** Another document with the same key is being sent: left pending, due again a little later. */
  deferred: number[];
}

/** What a finished (or retried) attempt left. */
export interface OutcomeRecord {
  id: number;
  /** Final state, or `pending` with `nextAttemptAt` for a retry. */
  state: Exclude<DocumentState, 'sending'>;
  nextAttemptAt?: number;
  outcome?: unknown;
  resultCode?: string | null;
  httpStatus?: number | null;
  errors?: ReportProblem[];
  warnings?: string[];
  response?: unknown;
  /**
   * The service's answer as the JSON text it sent (scrubbed already), stored as is in place of a
   * JSON.stringify of `response` (it reads back as the same value; one stringify per verdict saved).
   */
  responseText?: string;
  /** A word for the event history (e.g. "duplicate after resend: accepted the first time"). */
  note?: string;
  /** This attempt may have reached the service without its verdict coming back: sets the sticky flag. */
  maybeDelivered?: boolean;
  /** For `in-doubt`: why. */
  doubt?: DoubtReason;
  /** The key of a document the service numbered, from the number it assigned; a key already set stays. */
  key?: string;
}

export interface DocumentRow {
  id: number;
  fileId: number;
  index: number;
  source: SourcePosition;
  key: string | null;
  ownNumber: boolean;
  state: DocumentState;
  attempts: number;
  nextAttemptAt: number | null;
  resultCode: string | null;
  httpStatus: number | null;
  errors: ReportProblem[];
  warnings: string[];
  problems: ReportProblem[];
  response: unknown;
  raw: string;
  updatedAt: number;
  /** For `in-doubt`: why (null for other states). */
  doubt: DoubtReason | null;
  /** An attempt of this document may have reached the service (never cleared). */
  maybeDelivered: boolean;
}

export type StateCounts = Record<DocumentState, number>;

export interface FileProgress {
  total: number;
  counts: StateCounts;
  /** Every document is in a final state (and reading is over). */
  final: boolean;
}

export interface AttentionDocument {
  id: number;
  fileId: number;
  file: string;
  company: string;
  kind: string;
  index: number;
  key: string | null;
  state: DocumentState;
  attempts: number;
  lastError: string | null;
  updatedAt: number;
  /** For `in-doubt`: why (null for failed documents). */
  doubt: DoubtReason | null;
}

export interface StatusSummary {
  byCompanyKind: { company: string; kind: string; counts: StateCounts }[];
  filesInProgress: {
    id: number;
    name: string;
    company: string;
    kind: string;
    state: FileState;
    progress: FileProgress;
  }[];
  inDoubt: AttentionDocument[];
  failed: AttentionDocument[];
  /** `duplicate` documents refused for a number another document holds at the service (EDOC_SERVICE_NUMBER_CLASH): not issued. */
  clashes: AttentionDocument[];
  lastPulls: { company: string; at: number; data: unknown }[];
}

export interface RequeueTarget {
  ids?: number[];
  fileName?: string;
  key?: string;
  /** Release `in-doubt` documents too (the operator checked the service). */
  includeInDoubt?: boolean;
  /** Release documents held because the same file content was taken for another company (EDOC_LEDGER_OTHER_COMPANY). */
  includeOtherCompany?: boolean;
  now: number;
  /** Who asked, for the event history ('cli', 'console', 'api'). */
  by?: string;
}

export interface ReceivedRecord {
  company: string;
  documentId: string;
  documentNumber?: string | null;
  documentDate?: string | null;
  files: string[];
  at: number;
}

/** The code of the file-level error set on a file whose original changed after its documents were released. */
export const CHANGED_AFTER_SEND = 'EDOC_READ_CHANGED_AFTER_SEND';
/** What the alerts count per company (Ledger.openCounts). */
export interface CompanyOpenCounts {
  company: string;
  /** Documents `in-doubt` (waiting for an operator). */
  inDoubt: number;
  /** Documents not sent yet or being sent (`pending`, `sending`); 0 unless asked for. */
  unsent: number;
}
