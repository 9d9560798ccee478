import fsp from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import type { DocumentRow, FileProgress, FileRow } from '../ledger/types.js';
import type { DuplicateOf, ResultCounts } from './result-file.js';
import { ResultFileWriter, resultCounts } from './result-file.js';
import { ErrorsCsvWriter } from './errors-csv.js';
import { RetryFileWriter } from './retry-file.js';
import { outputNames } from '../policy/outbox-names.js';

/**
 * What a report is written from: one consistent read of the ledger (`Ledger.snapshot()`). The report
 * stage only reads it; recording that a report was written is the caller's (src/daemon/file-reports.ts).
 */
export interface ReportSource {
  file(fileId: number): Promise<FileRow | undefined>;
  fileProgress(fileId: number): Promise<FileProgress>;
  /** Documents in index order, streamed. */
  iterateFileDocuments(fileId: number): AsyncIterable<DocumentRow>;
}

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

/** How a report set is written (`writeReportSet`, and `writeFileReport` / `settleFile` in daemon/file-reports.ts). */
export interface ReportWriteOptions {
  /**
   * Removes configured secrets from every line of result.json and errors.csv (config/secrets.ts),
   * behind the ledger's own scrubbing. The retry file is the ERP's own text and is not rewritten here:
   * a document that held a key was stored with it redacted already (intake/intake.ts).
   */
  scrub?: (text: string) => string;
}

/** Creates a kind's outbox folder; EDOC_REPORT_WRITE when it cannot be. */
export async function ensureOutboxDir(outboxDir: string): Promise<void> {
  try {
    await fsp.mkdir(outboxDir, { recursive: true });
  } catch (err) {
    throw new EdocError(
      'EDOC_REPORT_WRITE',
      `Could not create the outbox folder ${outboxDir}: ${(err as Error).message}`,
      { file: outboxDir, errno: (err as NodeJS.ErrnoException).code },
      { cause: err },
    );
  }
}

/**
 * Writes NAME.result.json, NAME.errors.csv and NAME.retry.<ext> of `fileId` from `source` alone, in
 * one streamed pass, so after a crash the report is rebuilt exactly (its outbox folder exists, earlier
 * reports under its names are moved aside). A stale errors/retry file from an earlier pass is removed
 * when nothing needs it any more. Errors and retry first: once result.json says final its companions
 * are in place. Returns whether this report is the file's last (`final`), for the caller to record.
 * `outboxDir` is the kind's outbox folder (`outbox/<kind>` or `outbox/<company>/<kind>`).
 */
export async function writeReportSet(
  source: ReportSource,
  fileId: number,
  outboxDir: string,
  options: ReportWriteOptions = {},
): Promise<FileReportResult> {
  const file = await source.file(fileId);
  if (!file) throw new Error(`writeFileReport: no file ${fileId} in the ledger`);
  const progress = await source.fileProgress(fileId);
  const final = file.state === 'done' || (file.state === 'failed-read' && progress.final);
  const names = outputNames(file.reportName, file.name);
  const dir = file.reportDir ?? outboxDir;
  const resultPath = path.join(dir, names.result);
  const result = await ResultFileWriter.begin(
    resultPath,
    file,
    progress,
    await duplicateOf(source, file, dir, outboxDir),
    options.scrub,
  );
  const errors = new ErrorsCsvWriter(path.join(dir, names.errors), options.scrub);
  const retry = new RetryFileWriter(path.join(dir, names.retry), file);
  try {
    if (file.error) await errors.addFileError(file.error);
    for await (const doc of source.iterateFileDocuments(fileId)) {
      await result.add(doc);
      await errors.add(doc);
      await retry.add(doc);
    }
    // a commit that fails (a full disk) drops the writers not committed yet: their temp files and open
    // handles would stay, and a handle left to the garbage collector ends the process (ERR_INVALID_STATE)
    const hasErrors = await errors.commit();
    const hasRetry = await retry.commit();
    await result.commit();
    const out: FileReportResult = { resultPath, counts: resultCounts(progress), final };
    if (hasErrors) out.errorsPath = errors.target;
    if (hasRetry) out.retryPath = retry.target;
    return out;
  } catch (err) {
    await Promise.allSettled([result.abort(), errors.abort(), retry.abort()]);
    throw err;
  }
}

/** For a duplicate drop: the earlier file it repeats, where its report is (relative to `dir`) and when it was taken. */
async function duplicateOf(
  source: ReportSource,
  file: FileRow,
  dir: string,
  outboxDir: string,
): Promise<DuplicateOf | undefined> {
  const earlier = file.duplicateOf === null ? undefined : await source.file(file.duplicateOf);
  if (earlier === undefined) return undefined;
  const report = path.join(
    earlier.reportDir ?? earlier.outboxDir ?? outboxDir,
    outputNames(earlier.reportName, earlier.name).result,
  );
  return {
    file: earlier.name,
    result: path.relative(dir, report).split(path.sep).join('/'),
    startedAt: new Date(earlier.startedAt).toISOString(),
    finishedAt: earlier.finishedAt === null ? null : new Date(earlier.finishedAt).toISOString(),
  };
}
