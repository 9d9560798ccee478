import fsp from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerSnapshot } from '../ledger/snapshot.js';
import type { FileRow } from '../ledger/types.js';
import type { DuplicateOf, ResultCounts } from './result-file.js';
import { ResultFileWriter, resultCounts } from './result-file.js';
import { ErrorsCsvWriter } from './errors-csv.js';
import { RetryFileWriter } from './retry-file.js';
import { archiveOriginal, originalState } from './archive.js';
import { moveAsideEarlierReports } from './move-aside.js';
import { outputNames } from './names.js';
import { CHANGED_AFTER_SEND } from '../ledger/files.js';

export interface FileReportResult {
  resultPath: string;
  /** Present when errors.csv exists after this pass. */
  errorsPath?: string;
  /** Present when the retry file exists after this pass. */
  retryPath?: string;
  counts: ResultCounts;
  /** The file is done (or failed to read): this report is the last one. */
  final: boolean;
}

/**
 * Writes NAME.result.json, NAME.errors.csv and NAME.retry.<ext> of one input file from the ledger
 * alone — in one streamed pass over a consistent snapshot — so after a crash the report is rebuilt
 * exactly. A stale errors/retry file from an earlier pass is removed when nothing needs it any more.
 * `outboxDir` is the kind's outbox folder (`outbox/<kind>` or `outbox/<company>/<kind>`).
 */
export interface ReportWriteOptions {
  /**
   * Removes configured secrets from every line of result.json and errors.csv (config/secrets.ts),
   * behind the ledger's own scrubbing. The retry file is the ERP's own text and is not rewritten here:
   * a document that held a key was stored with it redacted already (daemon/intake.ts).
   */
  scrub?: (text: string) => string;
}

export async function writeFileReport(ledger: Ledger, fileId: number, outboxDir: string, options: ReportWriteOptions = {}): Promise<FileReportResult> {
  try {
    await fsp.mkdir(outboxDir, { recursive: true });
  } catch (err) {
    throw new EdocError('EDOC_REPORT_WRITE', `Could not create the outbox folder ${outboxDir}: ${(err as Error).message}`,
      { file: outboxDir, errno: (err as NodeJS.ErrnoException).code }, { cause: err });
  }
  // an earlier file's report under the same names is the ERP's only copy of that outcome: kept aside first
  await moveAsideEarlierReports(ledger, fileId, outboxDir);
  const snap = ledger.snapshot();
  try {
    const file = snap.file(fileId);
    if (!file) throw new Error(`writeFileReport: no file ${fileId} in the ledger`);
    const progress = snap.fileProgress(fileId);
    const final = file.state === 'done' || (file.state === 'failed-read' && progress.final);
    const names = outputNames(file.reportName, file.name);
    const dir = file.reportDir ?? outboxDir;
    const resultPath = path.join(dir, names.result);
    const result = await ResultFileWriter.begin(resultPath, file, progress, duplicateOf(snap, file, dir, outboxDir), options.scrub);
    const errors = new ErrorsCsvWriter(path.join(dir, names.errors), options.scrub);
    const retry = new RetryFileWriter(path.join(dir, names.retry), file);
    try {
      if (file.error) await errors.addFileError(file.error);
      for (const doc of snap.iterateFileDocuments(fileId)) {
        await result.add(doc);
        await errors.add(doc);
        await retry.add(doc);
      }
    } catch (err) {
      await Promise.allSettled([result.abort(), errors.abort(), retry.abort()]);
      throw err;
    }
    // errors and retry first: once result.json says final, its companions are already in place
    const hasErrors = await errors.commit();
    const hasRetry = await retry.commit();
    await result.commit();
    snap.close();
    if (!ledger.readOnly) ledger.markReported(fileId, final ? 'final' : 'partial');
    const out: FileReportResult = { resultPath, counts: resultCounts(progress), final };
    if (hasErrors) out.errorsPath = errors.target;
    if (hasRetry) out.retryPath = retry.target;
    return out;
  } finally {
    snap.close();
  }
}

/** For a duplicate drop: the earlier file it repeats, where its report is (relative to `dir`) and when it was taken. */
function duplicateOf(snap: LedgerSnapshot, file: FileRow, dir: string, outboxDir: string): DuplicateOf | undefined {
  const earlier = file.duplicateOf === null ? undefined : snap.file(file.duplicateOf);
  if (earlier === undefined) return undefined;
  const report = path.join(earlier.reportDir ?? earlier.outboxDir ?? outboxDir, outputNames(earlier.reportName, earlier.name).result);
  return { file: earlier.name, result: path.relative(dir, report).split(path.sep).join('/'),
    startedAt: new Date(earlier.startedAt).toISOString(),
    finishedAt: earlier.finishedAt === null ? null : new Date(earlier.finishedAt).toISOString() };
}

export interface SettleResult {
  /** Every document is final: the file was marked done, reported for the last time and archived. */
  settled: boolean;
  report?: FileReportResult;
  /** Where the original went; undefined when it was already gone (archived before a crash). */
  archivedPath?: string;
  /** The original changed after its documents were released: flagged now, left in place, not archived. */
  changedAfterSend?: boolean;
}

/**
 * The end of a file's life, safe to repeat after a crash at any step: when every document is final
 * → file `done` → final report → original to `<outboxDir>/archive/` → recorded. A file not yet
 * complete is left alone (write a progress report with `writeFileReport`).
 */
export interface SettleOptions extends ReportWriteOptions {
  now?: number;
  /**
   * Move the original to the archive. False for a file that did not come from an inbox folder
   * (`edoc-bridge submit FILE` leaves the operator's file where it is). @defaultValue true
   */
  archive?: boolean;
}

export async function settleFile(ledger: Ledger, fileId: number, outboxDir: string, options: SettleOptions = {}): Promise<SettleResult> {
  const now = options.now ?? Date.now();
  let file = ledger.getFile(fileId);
  if (!file) throw new Error(`settleFile: no file ${fileId} in the ledger`);
  if (file.state === 'open' && ledger.fileProgress(fileId).final) {
    ledger.finishFile(fileId, now);
    file = ledger.getFile(fileId) ?? file;
  }
  if (file.state !== 'done' && file.state !== 'failed-read') return { settled: false };
  // a read that failed half-way may still have documents in flight: their outcomes come first
  if (file.state === 'failed-read' && !ledger.fileProgress(fileId).final) return { settled: false };
  const out: SettleResult = { settled: true };
  const archive = file.archivedPath === null && options.archive !== false;
  // Content other than what was read is never archived as the processed original: it stays in the inbox
  // (taken again as a new file), and this file's report says so. A duplicate-file row read nothing.
  if (archive && file.state === 'done' && file.duplicateOf === null && !ledger.readOnly
    && (await originalState(file.path, { size: file.size, sha256: file.sha256 })) === 'changed') {
    out.changedAfterSend = ledger.flagChangedAfterSend(fileId, { code: CHANGED_AFTER_SEND, message: `${file.name} changed `
      + 'after its documents were released for sending: they were sent from the earlier content. The changed file was '
      + 'not archived; it stays in the inbox and is taken as a new file.' }, now);
    file = ledger.getFile(fileId) ?? file;
  }
  if (file.reportState !== 'final') out.report = await writeFileReport(ledger, fileId, outboxDir, { scrub: options.scrub });
  if (archive) {
    const archived = await archiveOriginal(file.path, path.join(outboxDir, 'archive'), { size: file.size, sha256: file.sha256 });
    // '' records "nothing left to move" so the file is not retried at every start
    ledger.markArchived(fileId, archived ?? '', now);
    if (archived !== undefined) out.archivedPath = archived;
  } else if (file.archivedPath === null) {
    // a file that stays where it is (edoc-bridge submit): nothing to move, and nothing left to settle at the next start
    ledger.markArchived(fileId, '', now);
  }
  return out;
}
