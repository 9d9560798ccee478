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
import type { LedgerPort, OutcomesResult, Verdict } from './port.js';
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
 * The SQLite backend of the ledger port (port.ts): the single source of truth, every file, document
 * and state change committed before the effect it stands for. better-sqlite3 is synchronous, so each
 * method runs whole (one transaction) before its Promise settles; an `async` method over it costs one
 * resolved promise. One writer process per state folder (the lock).
 */
export class Ledger implements LedgerPort {
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
  async close(): Promise<void> {
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
  async snapshot(): Promise<LedgerSnapshot> {
    return new LedgerSnapshot(this.dbPath);
  }

  /**
   * A real write (a row added and removed in one transaction, one fsync): succeeds only when the
   * ledger can grow again after a full disk (StorageWatch).
   */
  async probeWrite(now = Date.now()): Promise<void> {
    this.db.transaction(() => {
      const id = this.db.prepare(`INSERT INTO events(at, type) VALUES (?, 'storage-probe')`).run(now).lastInsertRowid;
      this.db.prepare('DELETE FROM events WHERE id = ?').run(id);
    }).immediate();
  }

  // --- files ---------------------------------------------------------------
  async recordFile(input: RecordFileInput): Promise<RecordFileResult> { return files.recordFile(this.db, input); }
  async setReadDetails(fileId: number, details: ReadDetails): Promise<void> { files.setReadDetails(this.db, fileId, details); }
  async finishReading(fileId: number, now = Date.now()): Promise<void> { files.finishReading(this.db, fileId, now); }
  async failRead(fileId: number, error: FileError, now = Date.now()): Promise<number> { return files.failRead(this.db, fileId, error, now); }
  async dropIntake(fileId: number, data: Record<string, unknown>, now = Date.now()): Promise<boolean> {
    return files.dropIntake(this.db, fileId, now, data);
  }
  async flagChangedAfterSend(fileId: number, error: FileError, now = Date.now()): Promise<boolean> {
    return files.flagChangedAfterSend(this.db, fileId, error, now);
  }
  async finishFile(fileId: number, now = Date.now()): Promise<boolean> { return files.finishFile(this.db, fileId, now); }
  async markReported(fileId: number, state: ReportState): Promise<void> { files.markReported(this.db, fileId, state); }
  async markArchived(fileId: number, archivedPath: string, now = Date.now()): Promise<void> {
    files.markArchived(this.db, fileId, archivedPath, now);
  }
  async getFile(fileId: number): Promise<FileRow | undefined> { return files.getFile(this.db, fileId); }
  async reportHolders(fileId: number): Promise<FileRow[]> { return files.reportHolders(this.db, fileId); }
  async reportPlaceTaken(dir: string, reportName: string, fileId: number): Promise<boolean> {
    return files.reportPlaceTaken(this.db, dir, reportName, fileId);
  }
  async relocateReport(fileId: number, dir: string, reportName: string, now = Date.now()): Promise<void> {
    files.relocateReport(this.db, fileId, dir, reportName, now);
  }
  async openFiles(): Promise<FileRow[]> { return files.openFiles(this.db); }
  async filesToSettle(): Promise<FileRow[]> { return files.filesToSettle(this.db); }
  async recentlyArchived(since: number): Promise<FileRow[]> { return files.recentlyArchived(this.db, since); }
  async fileProgress(fileId: number): Promise<FileProgress> { return status.fileProgress(this.db, fileId); }

  // --- documents -----------------------------------------------------------
  async insertDocuments(fileId: number, documents: Iterable<NewDocument>, now = Date.now()): Promise<InsertResult> {
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
  async acceptedKey(key: string): Promise<{ documentId: number; fileId: number } | undefined> { return docs.acceptedKey(this.db, key); }
  async claimDue(company: string, now: number, limit: number, exclude?: ReadonlySet<number>): Promise<DueDocument[]> {
    return docs.claimDue(this.db, company, now, limit, exclude);
  }
  async nextDueAt(company: string): Promise<number | undefined> { return docs.nextDueAt(this.db, company); }
  async markSending(ids: readonly number[], now = Date.now()): Promise<MarkSendingResult> { return docs.markSending(this.db, ids, now); }
  async unmarkSending(ids: readonly number[], now = Date.now()): Promise<number[]> { return docs.unmarkSending(this.db, ids, now); }
  async recordOutcomes(records: readonly OutcomeRecord[], now = Date.now()): Promise<OutcomesResult> {
    return docs.recordOutcomes(this.db, records, now);
  }
  async commitSubmissions(marks: readonly number[], outcomes: readonly OutcomeRecord[], now = Date.now()):
    Promise<{ marks: MarkSendingResult; outcomes: OutcomesResult }> {
    return this.db.transaction(() => ({
      outcomes: outcomes.length > 0 ? docs.recordOutcomes(this.db, outcomes, now) : { applied: [], fileIds: [] },
      marks: marks.length > 0 ? docs.markSending(this.db, marks, now) : { sending: [], duplicate: [], skipped: [], deferred: [] },
    })).immediate();
  }
  async recordOutcome(id: number, outcome: Verdict, now = Date.now()): Promise<boolean> {
    return docs.recordOutcomes(this.db, [{ ...outcome, id }], now).applied.length === 1;
  }
  async scheduleRetry(id: number, nextAt: number, outcome: Omit<OutcomeRecord, 'id' | 'state' | 'nextAttemptAt'> = {},
    now = Date.now()): Promise<boolean> {
    return this.recordOutcome(id, { ...outcome, state: 'pending', nextAttemptAt: nextAt }, now);
  }
  async sendingAtStart(): Promise<DueDocument[]> { return docs.sendingAtStart(this.db); }
  async recoverSending(now = Date.now()): Promise<{ resent: number[]; inDoubt: number[] }> { return docs.recoverSending(this.db, now); }
  async setInDoubt(ids: readonly number[], reason: string, now = Date.now()): Promise<number[]> {
    return docs.setInDoubt(this.db, ids, now, reason);
  }
  async requeue(target: RequeueTarget): Promise<{ ids: number[]; fileIds: number[] }> { return status.requeue(this.db, target); }
  /** `by`: who gave the word ('cli', 'console', 'api'), kept in the event history. */
  async confirmIssued(ids: readonly number[], note: string, now = Date.now(), by?: string):
    Promise<{ ids: number[]; fileIds: number[]; taken: { id: number; key: string }[] }> {
    return status.confirmIssued(this.db, ids, note, now, by);
  }
  /** The operator's word that the document held under these in-doubt (repeated-number) ones' number is not theirs. */
  async recordClash(ids: readonly number[], note: string, now = Date.now(), by?: string): Promise<{ ids: number[]; fileIds: number[] }> {
    return status.recordClash(this.db, ids, note, now, by);
  }
  async numberMayHaveBeenDelivered(doc: { id: number; company: string; kind: DocumentKind; key: string | null }): Promise<boolean> {
    return docs.numberMayHaveBeenDelivered(this.db, doc);
  }
  async getDocument(id: number): Promise<DocumentRow | undefined> { return docs.getDocument(this.db, id); }
  /** Pages of 500 (status.ts): the connection is free between pages, so the consumer may await. */
  async *iterateFileDocuments(fileId: number): AsyncGenerator<DocumentRow> { yield* status.iterateFileDocuments(this.db, fileId); }
  async statusSummary(listLimit?: number): Promise<StatusSummary> { return status.statusSummary(this.db, listLimit); }
  /** Documents, files and received documents counted for the metrics (ledger/operator-counts.ts). */
  async operatorCounts(): Promise<OperatorCounts> { return operatorCounts(this.db); }

  // --- operator surface (ranges watch, alerts) --------------------------------
  /** Highest number in [from, to] of this prefix that a document of the company among `kinds` holds. */
  async highestNumberUsed(company: string, kinds: readonly string[], prefix: string, from: number, to: number): Promise<number | undefined> {
    return ranges.highestNumberUsed(this.db, company, kinds, prefix, from, to);
  }
  /** Per company, documents in doubt and (withUnsent) documents not sent yet. */
  async openCounts(withUnsent = true): Promise<CompanyOpenCounts[]> { return ranges.openCounts(this.db, withUnsent); }

  // --- resend (edoc-bridge resend) -----------------------------------------
  async filesMatching(name: string): Promise<FileRow[]> { return resend.filesMatching(this.db, name); }
  async contentOutcome(file: FileRow): Promise<ContentOutcome> { return resend.contentOutcome(this.db, file); }
  async requestResend(fileId: number, now = Date.now()): Promise<{ request: ResendRequest; reused: boolean }> {
    return resend.requestResend(this.db, fileId, now);
  }
  async cancelResend(requestId: number, now = Date.now()): Promise<void> { resend.cancelResend(this.db, requestId, now); }

  // --- received documents (E12) -------------------------------------------
  async getCursor(company: string): Promise<string | undefined> { return received.getCursor(this.db, company); }
  async setCursor(company: string, cursor: string, now = Date.now()): Promise<void> { received.setCursor(this.db, company, cursor, now); }
  async recordPull(company: string, at: number, data?: unknown): Promise<void> { received.recordPull(this.db, company, at, data); }
  async seenReceived(company: string, documentId: string): Promise<boolean> { return received.seenReceived(this.db, company, documentId); }
  async recordReceived(record: ReceivedRecord): Promise<boolean> { return received.recordReceived(this.db, record); }
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
