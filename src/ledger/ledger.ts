import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EdocError } from '../errors.js';
import type { DocumentKind } from '../kinds/index.js';
import * as docs from './documents.js';
import * as files from './files.js';
import type { ReadDetails } from './files.js';
import { acquireLock, releaseLock } from './lock.js';
import type { HeldLock } from './lock.js';
import { migrate, SCHEMA_VERSION } from './migrations.js';
import * as ranges from './ranges.js';
import * as received from './received.js';
import * as resend from './resend.js';
import type { ResendRequest } from './files.js';
import type { ContentOutcome } from './resend.js';
import { ConsoleQueries } from './console-queries.js';
import { LedgerSnapshot } from './snapshot.js';
import { operatorCounts, type OperatorCounts } from './operator-counts.js';
import * as status from './status.js';
import type {
  CompanyOpenCounts, DocumentRow, DueDocument, FileError, FileProgress, FileRow, InsertResult, MarkSendingResult, NewDocument,
  OutcomeRecord, ReceivedRecord, RecordFileInput, RecordFileResult, ReportState, RequeueTarget, StatusSummary,
} from './types.js';

export const LEDGER_FILE = 'ledger.sqlite';

export interface LedgerOpenOptions {
  /** For `edoc-bridge status` beside a running daemon: no lock, no migrations, no writes. @defaultValue false */
  readOnly?: boolean;
  /**
   * For operator commands (`edoc-bridge retry`) beside a running daemon: writes short transactions
   * without taking the process lock (SQLite's own locking keeps them consistent); no migrations.
   * @defaultValue false
   */
  shared?: boolean;
  /** How long a statement waits for another connection's lock. @defaultValue 5000 */
  busyTimeoutMs?: number;
}

/**
 * The single source of truth: every file, document and state change, each committed before the
 * effect it stands for. Synchronous (better-sqlite3); one writer process per state folder.
 */
export class Ledger {
  /** Things worth one log line from the opener (a stale lock taken over, a migration). */
  readonly notes: string[] = [];
  private closed = false;
  private views: ConsoleQueries | undefined;

  private constructor(readonly db: Database.Database, readonly dbPath: string, readonly readOnly: boolean,
    private readonly lock: HeldLock | undefined) {}

  static open(stateDir: string, options: LedgerOpenOptions = {}): Ledger {
    const dbPath = path.join(path.resolve(stateDir), LEDGER_FILE);
    const timeout = options.busyTimeoutMs ?? 5000;
    if (options.readOnly || options.shared) {
      return new Ledger(openExisting(dbPath, stateDir, options.readOnly === true, timeout), dbPath, options.readOnly === true, undefined);
    }
    fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const lock = acquireLock(stateDir);
    let db: Database.Database | undefined;
    try {
      makePrivate(dbPath);
      db = new Database(dbPath, { timeout });
      db.pragma('journal_mode = WAL');
      // FULL: a commit survives power loss, not only a process crash — "sending" must be on disk before the request leaves
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      // Statement journals and sorts in memory: SQLite otherwise writes them to temporary files in /var/tmp
      // (one file per multi-row statement of a batch commit, ~200 writes each); they never serve crash recovery.
      db.pragma('temp_store = MEMORY');
      const ledger = new Ledger(db, dbPath, false, lock);
      const m = migrate(db);
      if (m.from !== m.to) ledger.notes.push(`ledger schema migrated from version ${m.from} to ${m.to}`);
      if (lock.tookOverFrom) {
        const t = lock.tookOverFrom;
        ledger.notes.push(`took over a stale lock of pid ${t.pid} (started ${t.startedAt}); that process is gone`);
        files.addEvent(db, Date.now(), 'lock-taken-over', null, null, t);
      }
      return ledger;
    } catch (err) {
      db?.close();
      releaseLock(lock);
      if (err instanceof EdocError) throw err;
      throw new EdocError('EDOC_LEDGER_OPEN', `The ledger ${dbPath} could not be opened: ${(err as Error).message}`,
        { stateDir, file: dbPath }, { cause: err });
    }
  }

  /** Closes the connection and releases the lock. Safe to call twice; each step runs even if one fails. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.close();
    } finally {
      if (this.lock) releaseLock(this.lock);
    }
  }

  /** The paged reads of the operator console and `edoc-bridge show` (ledger/console-queries.ts). */
  get console(): ConsoleQueries {
    this.views ??= new ConsoleQueries(this.db);
    return this.views;
  }

  /** A consistent read-only view on its own connection, for streaming reports. Close it when done. */
  snapshot(): LedgerSnapshot {
    return new LedgerSnapshot(this.dbPath);
  }

  /**
   * A real write (a row added and removed in one transaction, one fsync): succeeds only when the
   * ledger can grow again after a full disk (StorageWatch).
   */
  probeWrite(now = Date.now()): void {
    this.db.transaction(() => {
      const id = this.db.prepare(`INSERT INTO events(at, type) VALUES (?, 'storage-probe')`).run(now).lastInsertRowid;
      this.db.prepare('DELETE FROM events WHERE id = ?').run(id);
    }).immediate();
  }

  // --- files ---------------------------------------------------------------
  recordFile(input: RecordFileInput): RecordFileResult { return files.recordFile(this.db, input); }
  setReadDetails(fileId: number, details: ReadDetails): void { files.setReadDetails(this.db, fileId, details); }
  finishReading(fileId: number, now = Date.now()): void { files.finishReading(this.db, fileId, now); }
  failRead(fileId: number, error: FileError, now = Date.now()): number { return files.failRead(this.db, fileId, error, now); }
  /** Deletes an intake of which nothing was sent (the file is still `reading`); false otherwise. */
  dropIntake(fileId: number, data: Record<string, unknown>, now = Date.now()): boolean {
    return files.dropIntake(this.db, fileId, now, data);
  }
  flagChangedAfterSend(fileId: number, error: FileError, now = Date.now()): boolean {
    return files.flagChangedAfterSend(this.db, fileId, error, now);
  }
  finishFile(fileId: number, now = Date.now()): boolean { return files.finishFile(this.db, fileId, now); }
  markReported(fileId: number, state: ReportState): void { files.markReported(this.db, fileId, state); }
  markArchived(fileId: number, archivedPath: string, now = Date.now()): void { files.markArchived(this.db, fileId, archivedPath, now); }
  getFile(fileId: number): FileRow | undefined { return files.getFile(this.db, fileId); }
  reportHolders(fileId: number): FileRow[] { return files.reportHolders(this.db, fileId); }
  reportPlaceTaken(dir: string, reportName: string, fileId: number): boolean {
    return files.reportPlaceTaken(this.db, dir, reportName, fileId);
  }
  relocateReport(fileId: number, dir: string, reportName: string, now = Date.now()): void {
    files.relocateReport(this.db, fileId, dir, reportName, now);
  }
  openFiles(): FileRow[] { return files.openFiles(this.db); }
  filesToSettle(): FileRow[] { return files.filesToSettle(this.db); }
  recentlyArchived(since: number): FileRow[] { return files.recentlyArchived(this.db, since); }
  fileProgress(fileId: number): FileProgress { return status.fileProgress(this.db, fileId); }

  // --- documents -----------------------------------------------------------
  insertDocuments(fileId: number, documents: Iterable<NewDocument>, now = Date.now()): InsertResult {
    return docs.insertDocuments(this.db, fileId, documents, now);
  }
  /** Inserts an async stream of documents (the reader's), ~1000 per transaction. */
  async insertDocumentStream(fileId: number, documents: AsyncIterable<NewDocument>, now = Date.now()): Promise<InsertResult> {
    const total: InsertResult = { inserted: 0, invalid: 0, duplicate: 0 };
    let batch: NewDocument[] = [];
    const flush = () => {
      const r = docs.insertDocuments(this.db, fileId, batch, now);
      total.inserted += r.inserted;
      total.invalid += r.invalid;
      total.duplicate += r.duplicate;
      batch = [];
    };
    for await (const d of documents) {
      batch.push(d);
      if (batch.length >= 1000) flush();
    }
    if (batch.length > 0) flush();
    return total;
  }
  acceptedKey(key: string): { documentId: number; fileId: number } | undefined { return docs.acceptedKey(this.db, key); }
  claimDue(company: string, now: number, limit: number, exclude?: ReadonlySet<number>): DueDocument[] {
    return docs.claimDue(this.db, company, now, limit, exclude);
  }
  nextDueAt(company: string): number | undefined { return docs.nextDueAt(this.db, company); }
  markSending(ids: readonly number[], now = Date.now()): MarkSendingResult { return docs.markSending(this.db, ids, now); }
  unmarkSending(ids: readonly number[], now = Date.now()): number[] { return docs.unmarkSending(this.db, ids, now); }
  recordOutcomes(records: readonly OutcomeRecord[], now = Date.now()): { applied: number[]; fileIds: number[] } {
    return docs.recordOutcomes(this.db, records, now);
  }
  /**
   * Outcomes and `sending` marks in ONE transaction (one fsync): the submit stage's hot path, where
   * verdicts and the next marks arrive in the same turn. Outcomes go first, so a verdict frees its
   * key before a mark checks whether that key is in flight.
   */
  commitSubmissions(marks: readonly number[], outcomes: readonly OutcomeRecord[], now = Date.now()):
    { marks: MarkSendingResult; outcomes: { applied: number[]; fileIds: number[] } } {
    return this.db.transaction(() => ({
      outcomes: outcomes.length > 0 ? docs.recordOutcomes(this.db, outcomes, now) : { applied: [], fileIds: [] },
      marks: marks.length > 0 ? docs.markSending(this.db, marks, now) : { sending: [], duplicate: [], skipped: [], deferred: [] },
    })).immediate();
  }
  recordOutcome(id: number, outcome: Omit<OutcomeRecord, 'id'>, now = Date.now()): boolean {
    return docs.recordOutcomes(this.db, [{ ...outcome, id }], now).applied.length === 1;
  }
  scheduleRetry(id: number, nextAt: number, outcome: Omit<OutcomeRecord, 'id' | 'state' | 'nextAttemptAt'> = {},
    now = Date.now()): boolean {
    return this.recordOutcome(id, { ...outcome, state: 'pending', nextAttemptAt: nextAt }, now);
  }
  sendingAtStart(): DueDocument[] { return docs.sendingAtStart(this.db); }
  recoverSending(now = Date.now()): { resent: number[]; inDoubt: number[] } { return docs.recoverSending(this.db, now); }
  setInDoubt(ids: readonly number[], reason: string, now = Date.now()): number[] {
    return docs.setInDoubt(this.db, ids, now, reason);
  }
  requeue(target: RequeueTarget): { ids: number[]; fileIds: number[] } { return status.requeue(this.db, target); }
  /** `by`: who gave the word ('cli', 'console', 'api'), kept in the event history. */
  confirmIssued(ids: readonly number[], note: string, now = Date.now(), by?: string):
    { ids: number[]; fileIds: number[]; taken: { id: number; key: string }[] } {
    return status.confirmIssued(this.db, ids, note, now, by);
  }
  /** The operator's word that the document held under these in-doubt (repeated-number) ones' number is not theirs. */
  recordClash(ids: readonly number[], note: string, now = Date.now(), by?: string): { ids: number[]; fileIds: number[] } {
    return status.recordClash(this.db, ids, note, now, by);
  }
  /** Any document of ours with this number (its family) may have reached the service: see decide.ts. */
  numberMayHaveBeenDelivered(doc: { id: number; company: string; kind: DocumentKind; key: string | null }): boolean {
    return docs.numberMayHaveBeenDelivered(this.db, doc);
  }
  getDocument(id: number): DocumentRow | undefined { return docs.getDocument(this.db, id); }
  iterateFileDocuments(fileId: number): Generator<DocumentRow> { return status.iterateFileDocuments(this.db, fileId); }
  statusSummary(listLimit?: number): StatusSummary { return status.statusSummary(this.db, listLimit); }
  /** Documents, files and received documents counted for the metrics (ledger/operator-counts.ts). */
  operatorCounts(): OperatorCounts { return operatorCounts(this.db); }

  // --- operator surface (ranges watch, alerts) --------------------------------
  /** Highest number in [from, to] of this prefix that a document of the company among `kinds` holds. */
  highestNumberUsed(company: string, kinds: readonly string[], prefix: string, from: number, to: number): number | undefined {
    return ranges.highestNumberUsed(this.db, company, kinds, prefix, from, to);
  }
  /** Per company, documents in doubt and (withUnsent) documents not sent yet. */
  openCounts(withUnsent = true): CompanyOpenCounts[] { return ranges.openCounts(this.db, withUnsent); }

  // --- resend (edoc-bridge resend) -----------------------------------------
  filesMatching(name: string): FileRow[] { return resend.filesMatching(this.db, name); }
  contentOutcome(file: FileRow): ContentOutcome { return resend.contentOutcome(this.db, file); }
  requestResend(fileId: number, now = Date.now()): { request: ResendRequest; reused: boolean } {
    return resend.requestResend(this.db, fileId, now);
  }
  cancelResend(requestId: number, now = Date.now()): void { resend.cancelResend(this.db, requestId, now); }

  // --- received documents (E12) -------------------------------------------
  getCursor(company: string): string | undefined { return received.getCursor(this.db, company); }
  setCursor(company: string, cursor: string, now = Date.now()): void { received.setCursor(this.db, company, cursor, now); }
  recordPull(company: string, at: number, data?: unknown): void { received.recordPull(this.db, company, at, data); }
  seenReceived(company: string, documentId: string): boolean { return received.seenReceived(this.db, company, documentId); }
  recordReceived(record: ReceivedRecord): boolean { return received.recordReceived(this.db, record); }
}

/**
 * The ledger is customer data: owner-only whatever the umask. The file is created 0600 before SQLite
 * opens it (SQLite gives its -wal, -shm and -journal files the database's mode); files of an older
 * ledger are tightened too.
 */
function makePrivate(dbPath: string): void {
  try {
    fs.closeSync(fs.openSync(dbPath, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`]) {
    try {
      fs.chmodSync(file, 0o600);
    } catch { /* absent, or not ours to change (best effort; SQLite reports what matters) */ }
  }
}

/** An existing ledger of the current schema, without the lock: read-only, or shared for short operator writes. */
function openExisting(dbPath: string, stateDir: string, readonly: boolean, timeout: number): Database.Database {
  if (!fs.existsSync(dbPath)) {
    throw new EdocError('EDOC_LEDGER_NOT_FOUND', `There is no ledger in ${stateDir} yet.`, { stateDir });
  }
  const db = new Database(dbPath, { readonly, fileMustExist: true, timeout });
  if (!readonly) db.pragma('synchronous = FULL');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    db.close();
    throw new EdocError('EDOC_LEDGER_MIGRATION',
      `The ledger has schema version ${version}; this program reads version ${SCHEMA_VERSION}. Start the daemon once to migrate it.`,
      { stateDir, version });
  }
  return db;
}
