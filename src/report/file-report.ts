import fsp from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ResultCounts } from './result-file.js';
import { ResultFileWriter, resultCounts } from './result-file.js';
import { ErrorsCsvWriter } from './errors-csv.js';
import { RetryFileWriter } from './retry-file.js';
import { archiveOriginal } from './archive.js';
import { outputNames } from './names.js';

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
export async function writeFileReport(ledger: Ledger, fileId: number, outboxDir: string): Promise<FileReportResult> {
  try {
    await fsp.mkdir(outboxDir, { recursive: true });
  } catch (err) {
    throw new EdocError('EDOC_REPORT_WRITE', `Could not create the outbox folder ${outboxDir}: ${(err as Error).message}`,
      { file: outboxDir, errno: (err as NodeJS.ErrnoException).code }, { cause: err });
  }
  const snap = ledger.snapshot();
  try {
    const file = snap.file(fileId);
    if (!file) throw new Error(`writeFileReport: no file ${fileId} in the ledger`);
    const progress = snap.fileProgress(fileId);
    const final = file.state === 'done' || (file.state === 'failed-read' && progress.final);
    const names = outputNames(file.reportName, file.name);
    const resultPath = path.join(outboxDir, names.result);
    const result = await ResultFileWriter.begin(resultPath, file, progress);
    const errors = new ErrorsCsvWriter(path.join(outboxDir, names.errors));
    const retry = new RetryFileWriter(path.join(outboxDir, names.retry), file);
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

export interface SettleResult {
  /** Every document is final: the file was marked done, reported for the last time and archived. */
  settled: boolean;
  report?: FileReportResult;
  /** Where the original went; undefined when it was already gone (archived before a crash). */
  archivedPath?: string;
}

/**
 * The end of a file's life, safe to repeat after a crash at any step: when every document is final
 * → file `done` → final report → original to `<outboxDir>/archive/` → recorded. A file not yet
 * complete is left alone (write a progress report with `writeFileReport`).
 */
export interface SettleOptions {
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
  if (file.reportState !== 'final') out.report = await writeFileReport(ledger, fileId, outboxDir);
  if (file.archivedPath === null && options.archive !== false) {
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
