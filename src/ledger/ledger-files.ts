/**
 * The files part of the ledger port (port.ts): a file recorded, read, settled (finished, reported,
 * archived) or superseded, its report's place, and the reads of files that a restart or a take-over
 * settles. `Ledger` (ledger.ts) is this and the rest of the port; each method is one transaction of the
 * executor, fenced where it changes what a company's lease guards.
 */
import { ledgerNow } from '../policy/ledger-clock.js';
import type { Fence } from './fence.js';
import * as files from './files.js';
import type { ReadDetails } from './files.js';
import * as reading from './file-reading.js';
import * as recording from './record-file.js';
import * as notes from './note-references.js';
import * as waits from './reference-waits.js';
import * as places from './report-places.js';
import * as settling from './settle-file.js';
import type { SqlExecutor } from './sql/executor.js';
import * as status from './status.js';
import * as superseded from './superseded-files.js';
import type {
  FileError,
  FileProgress,
  FileRow,
  RecordFileInput,
  RecordFileResult,
  ReportState,
} from './types.js';

export abstract class LedgerFiles {
  constructor(
    readonly sql: SqlExecutor,
    protected readonly fence: Fence,
  ) {}

  recordFile(input: RecordFileInput): Promise<RecordFileResult> {
    return recording.recordFile(this.sql, input, this.fence);
  }
  setReadDetails(fileId: number, details: ReadDetails): Promise<void> {
    return reading.setReadDetails(this.sql, fileId, details, this.fence);
  }
  finishReading(fileId: number, now = ledgerNow(), details?: ReadDetails): Promise<void> {
    return reading.finishReading(this.sql, fileId, now, this.fence, details);
  }
  failRead(fileId: number, error: FileError, now = ledgerNow()): Promise<number> {
    return reading.failRead(this.sql, fileId, error, now, this.fence);
  }
  refuseWhole(fileId: number, error: FileError, now = ledgerNow()): Promise<number> {
    return reading.refuseWhole(this.sql, fileId, error, now, this.fence);
  }
  readAgain(fileId: number, now = ledgerNow()): Promise<number> {
    return reading.readAgain(this.sql, fileId, now, this.fence);
  }
  dropIntake(fileId: number, data: Record<string, unknown>, now = ledgerNow()): Promise<boolean> {
    return superseded.dropIntake(this.sql, fileId, now, data, this.fence);
  }
  takeSettledNotes(fileId: number): Promise<number[]> {
    return waits.takeSettledNotes(this.sql, fileId);
  }
  warnUnknownReferences(
    fileId: number,
    warnings: readonly { index: number; warning: string }[],
  ): Promise<void> {
    return notes.warnUnknownReferences(this.sql, fileId, warnings, this.fence);
  }
  flagChangedAfterSend(fileId: number, error: FileError, now = ledgerNow()): Promise<boolean> {
    return superseded.flagChangedAfterSend(this.sql, fileId, error, now, this.fence);
  }
  flagWrittenOnAfterRead(
    fileId: number,
    error: (earlier: FileError) => FileError,
    now = ledgerNow(),
  ): Promise<boolean> {
    return reading.flagWrittenOnAfterRead(this.sql, fileId, error, now, this.fence);
  }
  finishFile(fileId: number, now = ledgerNow()): Promise<boolean> {
    return settling.finishFile(this.sql, fileId, now, this.fence);
  }
  markReported(fileId: number, state: ReportState): Promise<void> {
    return settling.markReported(this.sql, fileId, state, this.fence);
  }
  markArchived(fileId: number, archivedPath: string, now = ledgerNow()): Promise<void> {
    return settling.markArchived(this.sql, fileId, archivedPath, now, this.fence);
  }
  getFile(fileId: number): Promise<FileRow | undefined> {
    return files.getFile(this.sql, fileId);
  }
  reportHolders(fileId: number): Promise<FileRow[]> {
    return places.reportHolders(this.sql, fileId);
  }
  reportPlaceTaken(dir: string, reportName: string, fileId: number): Promise<boolean> {
    return places.reportPlaceTaken(this.sql, dir, reportName, fileId);
  }
  relocateReport(
    fileId: number,
    dir: string,
    reportName: string,
    now = ledgerNow(),
  ): Promise<void> {
    return places.relocateReport(this.sql, fileId, dir, reportName, now, this.fence);
  }
  openFiles(company?: string): Promise<FileRow[]> {
    return files.openFiles(this.sql, company);
  }
  filesToSettle(company?: string): Promise<FileRow[]> {
    return files.filesToSettle(this.sql, company);
  }
  recentlyArchived(since: number): Promise<FileRow[]> {
    return files.recentlyArchived(this.sql, since);
  }
  fileProgress(fileId: number): Promise<FileProgress> {
    return status.fileProgress(this.sql, fileId);
  }
}
