import { ledgerNow } from '../policy/ledger-clock.js';
import type Database from 'better-sqlite3';
import type { DocumentKind } from '../kinds/index.js';
import * as docs from './documents.js';
import * as due from './due-documents.js';
import { fenceOf } from './fence.js';
import { releaseLock } from './lock.js';
import type { HeldLock } from './lock.js';
import * as ranges from './ranges.js';
import * as received from './received.js';
import { companyIds, recordCompanyIds } from './company-ids.js';
import * as master from './master-data.js';
import * as resend from './resend.js';
import type { ResendRequest } from './resend-requests.js';
import type { ContentOutcome } from './resend.js';
import type { LedgerFence, LedgerPort, OutcomesResult, Verdict } from './port.js';
import { ConsoleQueries } from './console-queries.js';
import { LedgerFiles } from './ledger-files.js';
import * as sending from './sending.js';
import * as verdicts from './verdicts.js';
import * as recovery from './recover-sending.js';
import { LedgerSnapshot } from './snapshot.js';
import { numberCopies, type NumberCopy } from './number-copies.js';
import { operatorCounts, type OperatorCounts } from './operator-counts.js';
import type { SqlExecutor } from './sql/executor.js';
import { SqliteExecutor } from './sql/sqlite.js';
import { openSqliteLedger, type LedgerOpenOptions } from './sqlite-ledger-file.js';
import * as status from './status.js';
import type {
  CompanyOpenCounts,
  DocumentRow,
  DueDocument,
  FileRow,
  InsertResult,
  MarkSendingResult,
  NewDocument,
  OutcomeRecord,
  ReceivedRecord,
  RequeueTarget,
  StatusSummary,
} from './types.js';

export { LEDGER_FILE, type LedgerOpenOptions } from './sqlite-ledger-file.js';

const NO_MARKS: MarkSendingResult = { sending: [], duplicate: [], skipped: [], deferred: [] };

/**
 * The ledger port (port.ts) over the SQL port (sql/executor.ts): the single source of truth, every
 * file, document and state change committed before the effect it stands for. The same class serves
 * SQLite (`Ledger.open`: one writer process per state folder, the lock) and PostgreSQL (open.ts,
 * `openPostgresLedger`); each method is one transaction of the executor.
 */
export class Ledger extends LedgerFiles implements LedgerPort {
  /** Things worth one log line from the opener (a stale lock taken over, a migration). */
  readonly notes: string[] = [];
  private closed = false;
  private views: ConsoleQueries | undefined;

  constructor(
    sql: SqlExecutor,
    readonly readOnly: boolean,
    private readonly lock?: HeldLock,
    fence?: LedgerFence,
  ) {
    super(sql, fenceOf(fence));
  }

  /** The SQLite connection (SQLite-only checks: pragmas, plans); throws on another backend. */
  get db(): Database.Database {
    if (this.sql instanceof SqliteExecutor) return this.sql.db;
    throw new Error(`ledger.db is SQLite's connection; this ledger is on ${this.sql.dialect}`);
  }

  static open(stateDir: string, options: LedgerOpenOptions = {}): Ledger {
    const opened = openSqliteLedger(stateDir, options);
    const ledger = new Ledger(opened.sql, opened.readOnly, opened.lock, options.fence);
    ledger.notes.push(...opened.notes);
    return ledger;
  }

  /** Closes the connection(s) and releases the lock. Safe to call twice; each step runs even if one fails. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.sql.close();
    } finally {
      if (this.lock) releaseLock(this.lock);
    }
  }

  /** The paged reads of the operator console and `edoc-bridge show` (ledger/console-queries.ts). */
  get console(): ConsoleQueries {
    this.views ??= new ConsoleQueries(this.sql);
    return this.views;
  }

  /** A consistent read-only view on its own connection, for streaming reports. Close it when done. */
  async snapshot(): Promise<LedgerSnapshot> {
    return new LedgerSnapshot(await this.sql.readView());
  }

  /**
   * A real write (a row added and removed in one transaction, one durable commit): succeeds only when
   * the ledger can grow again after a full disk (StorageWatch).
   */
  async probeWrite(now = ledgerNow()): Promise<void> {
    await this.sql.transaction(async (tx) => {
      const row = await tx.get<{ id: number }>(
        `INSERT INTO events(at, type) VALUES (?, 'storage-probe') RETURNING id`,
        [now],
      );
      await tx.run('DELETE FROM events WHERE id = ?', [row!.id]);
    });
  }

  // --- documents -----------------------------------------------------------
  insertDocuments(
    fileId: number,
    documents: Iterable<NewDocument>,
    now = ledgerNow(),
  ): Promise<InsertResult> {
    return docs.insertDocuments(this.sql, fileId, documents, now, this.fence);
  }
  /** Inserts an async stream of documents (the reader's), ~1000 per transaction. */
  insertDocumentStream(
    fileId: number,
    documents: AsyncIterable<NewDocument>,
    now = ledgerNow(),
  ): Promise<InsertResult> {
    return docs.insertDocuments(this.sql, fileId, documents, now, this.fence);
  }
  acceptedKey(key: string): Promise<{ documentId: number; fileId: number } | undefined> {
    return due.acceptedKey(this.sql, key);
  }
  claimDue(
    company: string,
    now: number,
    limit: number,
    exclude?: ReadonlySet<number>,
  ): Promise<DueDocument[]> {
    return due.claimDue(this.sql, company, now, limit, exclude);
  }
  nextDueAt(company: string): Promise<number | undefined> {
    return due.nextDueAt(this.sql, company);
  }
  markSending(ids: readonly number[], now = ledgerNow()): Promise<MarkSendingResult> {
    return sending.markSending(this.sql, ids, now, this.fence);
  }
  unmarkSending(ids: readonly number[], now = ledgerNow()): Promise<number[]> {
    return sending.unmarkSending(this.sql, ids, now, this.fence);
  }
  recordOutcomes(records: readonly OutcomeRecord[], now = ledgerNow()): Promise<OutcomesResult> {
    return verdicts.recordOutcomes(this.sql, records, now, this.fence);
  }
  commitSubmissions(
    marks: readonly number[],
    outcomes: readonly OutcomeRecord[],
    now = ledgerNow(),
  ): Promise<{ marks: MarkSendingResult; outcomes: OutcomesResult }> {
    return this.sql.transaction(async (tx) => ({
      outcomes:
        outcomes.length > 0
          ? await verdicts.recordOutcomesTx(tx, outcomes, now, this.fence)
          : { applied: [], fileIds: [] },
      marks:
        marks.length > 0
          ? await sending.markSendingTx(tx, marks, now, this.fence)
          : { ...NO_MARKS },
    }));
  }
  async recordOutcome(id: number, outcome: Verdict, now = ledgerNow()): Promise<boolean> {
    return (
      (await verdicts.recordOutcomes(this.sql, [{ ...outcome, id }], now, this.fence)).applied
        .length === 1
    );
  }
  scheduleRetry(
    id: number,
    nextAt: number,
    outcome: Omit<OutcomeRecord, 'id' | 'state' | 'nextAttemptAt'> = {},
    now = ledgerNow(),
  ): Promise<boolean> {
    return this.recordOutcome(id, { ...outcome, state: 'pending', nextAttemptAt: nextAt }, now);
  }
  sendingAtStart(company?: string): Promise<DueDocument[]> {
    return due.sendingAtStart(this.sql, company);
  }
  openFileSamples(company: string): Promise<due.OpenFileSample[]> {
    return due.openFileSamples(this.sql, company);
  }
  companyIds(aliases: readonly string[]): Promise<Map<string, number>> {
    return companyIds(this.sql, aliases);
  }
  recordCompanyIds(
    companies: readonly { alias: string; id: number }[],
    now = ledgerNow(),
  ): Promise<void> {
    return recordCompanyIds(this.sql, companies, now, this.fence);
  }
  recoverSending(
    now = ledgerNow(),
    company?: string,
  ): Promise<{ resent: number[]; inDoubt: number[] }> {
    return recovery.recoverSending(this.sql, now, company, this.fence);
  }
  setInDoubt(ids: readonly number[], reason: string, now = ledgerNow()): Promise<number[]> {
    return recovery.setInDoubt(this.sql, ids, now, reason, this.fence);
  }
  // operator actions: never fenced (port.ts)
  requeue(target: RequeueTarget): Promise<{ ids: number[]; fileIds: number[] }> {
    return status.requeue(this.sql, target);
  }
  /** `by`: who gave the word ('cli', 'console', 'api'), kept in the event history. */
  confirmIssued(
    ids: readonly number[],
    note: string,
    now = ledgerNow(),
    by?: string,
    assigned?: ReadonlyMap<number, string>,
  ): ReturnType<LedgerPort['confirmIssued']> {
    return status.confirmIssued(this.sql, ids, note, now, by, assigned);
  }
  /** The operator's word that the document held under these in-doubt (repeated-number) ones' number is not theirs. */
  recordClash(
    ids: readonly number[],
    note: string,
    now = ledgerNow(),
    by?: string,
  ): Promise<{ ids: number[]; fileIds: number[] }> {
    return status.recordClash(this.sql, ids, note, now, by);
  }
  numberCopies(key: string): Promise<NumberCopy[]> {
    return numberCopies(this.sql, key);
  }
  numberMayHaveBeenDelivered(doc: {
    id: number;
    company: string;
    kind: DocumentKind;
    key: string | null;
  }): Promise<boolean> {
    return due.numberMayHaveBeenDelivered(this.sql, doc);
  }
  getDocument(id: number): Promise<DocumentRow | undefined> {
    return due.getDocument(this.sql, id);
  }
  /** Pages of 500 (status.ts): the connection is free between pages, so the consumer may await. */
  iterateFileDocuments(fileId: number): AsyncGenerator<DocumentRow> {
    return status.iterateFileDocuments(this.sql, fileId);
  }
  /** One read transaction: the counts and the lists agree. */
  statusSummary(listLimit?: number): Promise<StatusSummary> {
    return this.sql.read((tx) => status.statusSummary(tx, listLimit));
  }
  /** Documents, files and received documents counted for the metrics (ledger/operator-counts.ts). */
  operatorCounts(): Promise<OperatorCounts> {
    return operatorCounts(this.sql);
  }

  // --- operator surface (ranges watch, alerts) --------------------------------
  /** Highest number in [from, to] of this prefix that a document of the company among `kinds` holds. */
  highestNumberUsed(
    company: string,
    kinds: readonly string[],
    prefix: string,
    from: number,
    to: number,
  ): Promise<number | undefined> {
    return ranges.highestNumberUsed(this.sql, company, kinds, prefix, from, to);
  }
  /** Per company, documents in doubt and (withUnsent) documents not sent yet. */
  openCounts(withUnsent = true): Promise<CompanyOpenCounts[]> {
    return ranges.openCounts(this.sql, withUnsent);
  }

  // --- resend (edoc-bridge resend) -----------------------------------------
  filesMatching(name: string): Promise<FileRow[]> {
    return resend.filesMatching(this.sql, name);
  }
  contentOutcome(file: FileRow): Promise<ContentOutcome> {
    return resend.contentOutcome(this.sql, file);
  }
  requestResend(
    fileId: number,
    now = ledgerNow(),
  ): Promise<{ request: ResendRequest; reused: boolean }> {
    return resend.requestResend(this.sql, fileId, now);
  }
  cancelResend(requestId: number, now = ledgerNow()): Promise<void> {
    return resend.cancelResend(this.sql, requestId, now);
  }

  // --- received documents (E12) -------------------------------------------
  getCursor(company: string): Promise<string | undefined> {
    return received.getCursor(this.sql, company);
  }
  setCursor(company: string, cursor: string, now = ledgerNow()): Promise<void> {
    return received.setCursor(this.sql, company, cursor, now, this.fence);
  }
  recordPull(company: string, at: number, data?: unknown): Promise<void> {
    return received.recordPull(this.sql, company, at, data, this.fence);
  }
  seenReceived(company: string, documentId: string): Promise<boolean> {
    return received.seenReceived(this.sql, company, documentId);
  }
  recordReceived(record: ReceivedRecord): Promise<boolean> {
    return received.recordReceived(this.sql, record, this.fence);
  }

  // --- master data (ledger/master-data.ts) ---------------------------------
  latestMasterVersion(table: string): Promise<master.MasterVersion | undefined> {
    return master.latestMasterVersion(this.sql, table);
  }
  storeMasterVersion(
    input: master.NewMasterVersion,
    now = ledgerNow(),
  ): ReturnType<LedgerPort['storeMasterVersion']> {
    return master.storeMasterVersion(this.sql, input, now);
  }
  readMasterTable(table: string, version: number): Promise<master.MasterTableData | undefined> {
    return master.readMasterTable(this.sql, table, version);
  }
}
