/**
 * The ledger port: what the stages (intake, submit, report, received, recovery, the operator's
 * commands) need from the ledger, with no word about how it is stored. Two backends implement it:
 * SQLite (embedded, the default) and PostgreSQL (cluster mode, issue 13), both the one `Ledger` class over
 * the SQL port (sql/executor.ts): the logic is written once, the backends differ in SQL only. Callers
 * depend on this interface only; the wiring (root/open-pipeline.ts, cli/) opens a backend with
 * `openLedger` (open.ts).
 *
 * Every method that touches the database returns a Promise, because a network database cannot
 * answer synchronously. Over SQLite a call still runs whole before it returns (better-sqlite3 is
 * synchronous); the Promise costs one resolved promise, nothing more.
 *
 * THE ATOMICITY RULE. Each method is one transaction: its reads and writes see nothing of other
 * writers in between. Between two awaited calls anything may run — another sender's commit, the
 * report scheduler, an operator's `retry` in another process, another node of a cluster. So a
 * decision that reads the ledger and then writes on the strength of that read must be ONE method
 * here (the backend re-checks the condition in its write: `markSending` takes only documents still
 * `pending`, `finishFile` only a file whose documents are all final, `recordOutcomes` only documents
 * still `sending`, `confirmIssued` only documents still in doubt). Where a caller reads in one call
 * and writes in another, the comment at that caller says why interleaving is harmless there.
 */
import type { DocumentKind } from '../kinds/index.js';
import type { SqlExecutor } from './sql/executor.js';
import type { ReadDetails } from './files.js';
import type { ResendRequest } from './resend-requests.js';
import type { ConsoleQueries } from './console-queries.js';
import type { NumberCopy } from './number-copies.js';
import type { OperatorCounts } from './operator-counts.js';
import type { ContentOutcome } from './resend.js';
import type { OpenFileSample } from './due-documents.js';
import type { MasterTableData, MasterVersion, NewMasterVersion } from './master-data.js';
import type {
  CompanyOpenCounts,
  DocumentRow,
  DueDocument,
  FileError,
  FileProgress,
  FileRow,
  InsertResult,
  MarkSendingResult,
  NewDocument,
  OutcomeRecord,
  ReceivedRecord,
  RecordFileInput,
  RecordFileResult,
  ReportState,
  RequeueTarget,
  StatusSummary,
} from './types.js';

/**
 * The cluster's fencing hook (implemented by src/cluster/, given at open). The ledger calls it inside
 * every transaction that changes a company's documents, files, cursors or received rows on behalf of
 * the running pipeline, once per company the transaction touched, before it commits; never in operator
 * actions (requeue, confirmIssued, recordClash, resend requests), which run from any machine without a
 * lease. Without a fence (SQLite, one node) nothing is checked.
 */
export interface LedgerFence {
  /** Inside a write transaction, before it commits: throws (EdocError 'EDOC_CLUSTER_FENCED') when this node no longer holds `company`'s lease. */
  check(tx: SqlExecutor, company: string): Promise<void>;
  /**
   * The cluster's claim of a dropped file (`path` as recorded, content hash, company), in recordFile's
   * transaction after check(), once the file's row (`fileId`: new, resumed or duplicate) is known.
   */
  claimFile?(
    tx: SqlExecutor,
    file: { path: string; sha256: string; company: string },
    fileId: number,
  ): Promise<void>;
}

/** A verdict without its document id (the single-document forms). */
export type Verdict = Omit<OutcomeRecord, 'id'>;

/** Verdicts committed and the files whose documents changed. */
export interface OutcomesResult {
  applied: number[];
  fileIds: number[];
}

/**
 * A consistent read-only view for one report (`LedgerPort.snapshot`): one read transaction, so the
 * counts and the documents agree even while senders commit. Close it when done (idempotent).
 */
export interface LedgerSnapshotPort {
  file(fileId: number): Promise<FileRow | undefined>;
  fileProgress(fileId: number): Promise<FileProgress>;
  /**
   * Documents in index order, streamed (never collected): 200,000 of them pass through a report.
   * `raw` is read only for the states whose originals may go to the retry file.
   */
  iterateFileDocuments(fileId: number): AsyncIterable<DocumentRow>;
  close(): Promise<void>;
}

/** The console's paged reads (console-queries.ts), each method one read: what a backend provides for them. */
export type ConsoleReads = { readonly [K in keyof ConsoleQueries]: ConsoleQueries[K] };

export interface LedgerPort {
  /** Opened without writes (`edoc-bridge status` beside a running daemon): callers skip what would record. */
  readonly readOnly: boolean;
  /** Things worth one log line from the opener (a stale lock taken over, a migration). */
  readonly notes: readonly string[];

  // --- lifecycle -----------------------------------------------------------------------------------
  /** Closes the connection(s) and releases what the open took (the process lock). Idempotent. */
  close(): Promise<void>;
  /**
   * A real write (a row added and removed in one transaction, one durable commit): succeeds only when
   * the ledger can grow again after a full disk (StorageWatch).
   */
  probeWrite(now?: number): Promise<void>;
  /** A consistent read-only view for a streamed report (see LedgerSnapshotPort). */
  snapshot(): Promise<LedgerSnapshotPort>;

  // --- files (intake) ------------------------------------------------------------------------------
  /**
   * Records a dropped file, or finds it: resumed (same path and content left unfinished), duplicate
   * content, a stale read of the path dropped, an earlier released file at the path flagged changed
   * after send, a resend request taken. All of it one transaction: two intakes of one content never
   * both get `new`.
   */
  recordFile(input: RecordFileInput): Promise<RecordFileResult>;
  setReadDetails(fileId: number, details: ReadDetails): Promise<void>;
  /** Stores documents held back (not due), ~1000 per transaction; indexes already stored are ignored. */
  insertDocuments(
    fileId: number,
    documents: Iterable<NewDocument>,
    now?: number,
  ): Promise<InsertResult>;
  /** The same for an async stream (the reader's). */
  insertDocumentStream(
    fileId: number,
    documents: AsyncIterable<NewDocument>,
    now?: number,
  ): Promise<InsertResult>;
  /**
   * The file was read whole and found unchanged: `open`, its documents released (due now). Only from
   * `reading`. `details`: what the read found (as `setReadDetails`), recorded in the same transaction.
   */
  finishReading(fileId: number, now?: number, details?: ReadDetails): Promise<void>;
  /** The file could not be read to the end: its unsent documents are held back (`invalid`). Returns how many. */
  failRead(fileId: number, error: FileError, now?: number): Promise<number>;
  /** The file is refused whole while `reading`: its stored documents are removed, none sent. Returns how many. */
  refuseWhole(fileId: number, error: FileError, now?: number): Promise<number>;
  /** A file left `reading` by an earlier attempt is read again: its stored documents are removed. Returns how many. */
  readAgain(fileId: number, now?: number): Promise<number>;
  /** Deletes an intake of which nothing was sent (the file is still `reading`); false otherwise. */
  dropIntake(fileId: number, data: Record<string, unknown>, now?: number): Promise<boolean>;
  /**
   * The files of the notes that waited for this file's read and were settled when it ended (finishReading,
   * failRead, refuseWhole, dropIntake: ledger/reference-waits.ts), taken once: their reports are due.
   */
  takeSettledNotes(fileId: number): Promise<number[]>;
  /** Stores the warnings of a file's notes (by index) whose references the ledger did not know, before they are sent. */
  warnUnknownReferences(
    fileId: number,
    warnings: readonly { index: number; warning: string }[],
  ): Promise<void>;
  /** The original changed after its documents were released: a file error, unsent ones held. False when flagged already. */
  flagChangedAfterSend(fileId: number, error: FileError, now?: number): Promise<boolean>;
  /** A `failed-read` file's archived copy was written on: `error(earlier)` replaces its error. False when not so. */
  flagWrittenOnAfterRead(
    fileId: number,
    error: (earlier: FileError) => FileError,
    now?: number,
  ): Promise<boolean>;

  // --- files (reports, archive, recovery of reports) ---------------------------------------------
  /**
   * The file is `done`: only when it is `open` AND every document of it is final, checked in the same
   * transaction (an operator's `retry` between a progress read and this call cannot leave a done file
   * with pending documents). Returns whether it changed.
   */
  finishFile(fileId: number, now?: number): Promise<boolean>;
  markReported(fileId: number, state: ReportState): Promise<void>;
  markArchived(fileId: number, archivedPath: string, now?: number): Promise<void>;
  getFile(fileId: number): Promise<FileRow | undefined>;
  fileProgress(fileId: number): Promise<FileProgress>;
  /** Earlier files whose reports hold this file's outbox names (to be moved aside first), newest first. */
  reportHolders(fileId: number): Promise<FileRow[]>;
  reportPlaceTaken(dir: string, reportName: string, fileId: number): Promise<boolean>;
  relocateReport(fileId: number, dir: string, reportName: string, now?: number): Promise<void>;
  /** Files being read or with documents not final, oldest first (start-up); only `company`'s when given (a cluster node's take-over). */
  openFiles(company?: string): Promise<FileRow[]>;
  /** Finished files whose final report or archive move may not have happened (start-up); only `company`'s when given. */
  filesToSettle(company?: string): Promise<FileRow[]>;
  /** Files archived since `since` whose archived copy is still watched (archive watch, start-up). */
  recentlyArchived(since: number): Promise<FileRow[]>;

  // --- documents and sending (submit) --------------------------------------------------------------
  /** Pending documents of a company due at `now`, minus `exclude` (queued in memory). Reads only. */
  claimDue(
    company: string,
    now: number,
    limit: number,
    exclude?: ReadonlySet<number>,
  ): Promise<DueDocument[]>;
  /** The earliest future attempt of a company (the feeder's timer). */
  nextDueAt(company: string): Promise<number | undefined>;
  /**
   * Marks documents `sending` (intent) — only those still `pending`; one whose key was accepted
   * meanwhile becomes `duplicate`, one whose key is being sent is deferred. The request of a document
   * may leave only after this resolved with it in `sending`.
   */
  markSending(ids: readonly number[], now?: number): Promise<MarkSendingResult>;
  /** Takes back `sending` marks whose requests never left: pending, due now, the attempt not counted. */
  unmarkSending(ids: readonly number[], now?: number): Promise<number[]>;
  /** Commits verdicts of documents still `sending` (final, or pending with a retry time). */
  recordOutcomes(records: readonly OutcomeRecord[], now?: number): Promise<OutcomesResult>;
  /**
   * Verdicts, then `sending` marks, in ONE transaction (one durable commit): the sender's hot path.
   * Verdicts first, so a verdict frees its key before a mark checks whether that key is in flight.
   */
  commitSubmissions(
    marks: readonly number[],
    outcomes: readonly OutcomeRecord[],
    now?: number,
  ): Promise<{ marks: MarkSendingResult; outcomes: OutcomesResult }>;
  /** One verdict (recordOutcomes of one); whether it applied. */
  recordOutcome(id: number, outcome: Verdict, now?: number): Promise<boolean>;
  /** One retry verdict: pending again at `nextAt`. */
  scheduleRetry(
    id: number,
    nextAt: number,
    outcome?: Omit<OutcomeRecord, 'id' | 'state' | 'nextAttemptAt'>,
    now?: number,
  ): Promise<boolean>;
  /** Whether any document of ours with this number (its kind family) may have reached the service (decide.ts). */
  numberMayHaveBeenDelivered(doc: {
    id: number;
    company: string;
    kind: DocumentKind;
    key: string | null;
  }): Promise<boolean>;
  /** The accepted document holding this key, if any. */
  acceptedKey(key: string): Promise<{ documentId: number; fileId: number } | undefined>;
  getDocument(id: number): Promise<DocumentRow | undefined>;
  /** A file's documents in index order, read in pages (memory stays bounded; nothing held open between pages). */
  iterateFileDocuments(fileId: number): AsyncIterable<DocumentRow>;

  // --- recovery (start-up, before any sender runs) --------------------------------------------------
  /** Documents left `sending` by a stopped process (only `company`'s when given). */
  sendingAtStart(company?: string): Promise<DueDocument[]>;
  /** Per open file of the company, its first document still to send (the start's identity check). */
  openFileSamples(company: string): Promise<OpenFileSample[]>;
  /** The service company id each alias's files are taken under, where one is recorded (company-ids.ts). */
  companyIds(aliases: readonly string[]): Promise<Map<string, number>>;
  /** The companies' files are taken under these ids from now on (their runs started, or a reload changed them). */
  recordCompanyIds(
    companies: readonly { alias: string; id: number }[],
    now?: number,
  ): Promise<void>;
  /**
   * Every document left `sending` (only `company`'s when given: a cluster node recovers the companies it
   * takes over), in one transaction: those with their own number back to pending (resent; a duplicate
   * answer then means accepted), the others in doubt, flagged "may have been delivered".
   */
  recoverSending(now?: number, company?: string): Promise<{ resent: number[]; inDoubt: number[] }>;
  setInDoubt(ids: readonly number[], reason: string, now?: number): Promise<number[]>;

  // --- operator actions (retry, resolve, status) ---------------------------------------------------
  /** Failed (and, when asked, in-doubt) documents back to pending, their files reopened; only those still in those states. */
  requeue(target: RequeueTarget): Promise<{ ids: number[]; fileIds: number[] }>;
  /**
   * In-doubt documents confirmed issued: `accepted`, unless another document holds their key (`taken`).
   * `by`: who gave the word ('cli', 'console', 'api'), kept in the event history.
   */
  confirmIssued(
    ids: readonly number[],
    note: string,
    now?: number,
    by?: string,
    assigned?: ReadonlyMap<number, string>,
  ): Promise<{
    ids: number[];
    fileIds: number[];
    taken: { id: number; key: string }[];
    released: number;
  }>;
  /** In-doubt (repeated-number) documents whose number is not theirs: `duplicate` with the clash error. */
  recordClash(
    ids: readonly number[],
    note: string,
    now?: number,
    by?: string,
  ): Promise<{ ids: number[]; fileIds: number[] }>;
  statusSummary(listLimit?: number): Promise<StatusSummary>;
  /** Every document of ours under one number (full key), oldest first: what resolve --issued compares. */
  numberCopies(key: string): Promise<NumberCopy[]>;

  // --- operator surface (console, metrics) ---------------------------------------------------------
  /** The paged reads of the operator console and `edoc-bridge show`; reads only, each one call. */
  readonly console: ConsoleReads;
  /** Documents, files and received documents counted for the metrics, in one read transaction. */
  operatorCounts(): Promise<OperatorCounts>;
  /** The range watch: the highest number in [from, to] of this prefix that a document of the company among `kinds` holds. */
  highestNumberUsed(
    company: string,
    kinds: readonly string[],
    prefix: string,
    from: number,
    to: number,
  ): Promise<number | undefined>;
  /** The alerts: per company, documents in doubt and (withUnsent) documents not sent yet. */
  openCounts(withUnsent?: boolean): Promise<CompanyOpenCounts[]>;

  // --- resend (edoc-bridge resend) ------------------------------------------------------------------
  filesMatching(name: string): Promise<FileRow[]>;
  contentOutcome(file: FileRow): Promise<ContentOutcome>;
  /** Records that the next drop of this file's content is taken again; an open request is reused (one transaction). */
  requestResend(fileId: number, now?: number): Promise<{ request: ResendRequest; reused: boolean }>;
  cancelResend(requestId: number, now?: number): Promise<void>;

  // --- received documents (E12) ---------------------------------------------------------------------
  getCursor(company: string): Promise<string | undefined>;
  setCursor(company: string, cursor: string, now?: number): Promise<void>;
  recordPull(company: string, at: number, data?: unknown): Promise<void>;
  seenReceived(company: string, documentId: string): Promise<boolean>;
  /** False when the document was recorded already (the first record stands). */
  recordReceived(record: ReceivedRecord): Promise<boolean>;

  // --- master data (lookup tables the mappings read) ------------------------------------------------
  /** The newest version of a table, or undefined when none was loaded. */
  latestMasterVersion(table: string): Promise<MasterVersion | undefined>;
  /** Stores a version unless the newest has the same content (then `stored` is undefined); one transaction. */
  storeMasterVersion(
    input: NewMasterVersion,
    now?: number,
  ): Promise<{ stored: MasterVersion | undefined; latest: MasterVersion | undefined }>;
  /** A version with its rows, or undefined when it is no longer kept. */
  readMasterTable(table: string, version: number): Promise<MasterTableData | undefined>;
}
