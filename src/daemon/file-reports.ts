/**
 * A file's reports and the ledger's record of them: the report stage (src/report/) writes the files
 * from a read of the ledger; this records what it wrote (reported, moved aside, finished, archived).
 * The daemon's report scheduler and the commands that report (`submit`, `resolve`) call these two.
 */
import { ledgerNow } from '../policy/ledger-clock.js';
import path from 'node:path';
import type { CompanyView } from '../company/company-view.js';
import type { LedgerPort } from '../ledger/port.js';
import { CHANGED_AFTER_SEND, type FileRow } from '../ledger/types.js';
import { archiveOriginal, originalState } from '../report/archive.js';
import { setFilesOfRow } from '../map/parts.js';
import { archiveSet, setState } from './set-archive.js';
import { ensureOutboxDir, writeReportSet } from '../report/file-report.js';
import type { FileReportResult, ReportWriteOptions } from '../report/file-report.js';
import { moveAsideError, moveReportSetAside } from '../report/move-aside.js';
import { sentFromEarlier } from '../report/result-file.js';

export type { FileReportResult, ReportWriteOptions } from '../report/file-report.js';

/**
 * Runs one of a file's ledger writes (its report recorded, its original archived). The report
 * scheduler's starts the writes of the files it reports at once in one turn, so their transactions
 * share one commit (`report-turns.ts`); each is still committed before its file's next step.
 */
export type LedgerWrite = <T>(write: () => Promise<T>) => Promise<T>;

export interface FileReportOptions extends ReportWriteOptions {
  /** @defaultValue the write at once */
  together?: LedgerWrite;
}

const AT_ONCE: LedgerWrite = (write) => write();

/**
 * Writes NAME.result.json, NAME.errors.csv and NAME.retry.<ext> of one input file from the ledger
 * alone — in one streamed pass over a consistent snapshot — so after a crash the report is rebuilt
 * exactly, then records it `partial` or `final`. `outboxDir` is the kind's outbox folder
 * (`outbox/<kind>` or `outbox/<company>/<kind>`).
 */
export async function writeFileReport(
  ledger: LedgerPort,
  fileId: number,
  outboxDir: string,
  options: FileReportOptions = {},
): Promise<FileReportResult> {
  await ensureOutboxDir(outboxDir);
  // an earlier file's report under the same names is the ERP's only copy of that outcome: kept aside first
  await moveAsideEarlierReports(ledger, fileId, outboxDir);
  const snap = await ledger.snapshot();
  let out: FileReportResult;
  try {
    out = await writeReportSet(snap, fileId, outboxDir, options);
  } finally {
    await snap.close();
  }
  if (!ledger.readOnly) {
    const state = out.final ? 'final' : 'partial';
    await (options.together ?? AT_ONCE)(() => ledger.markReported(fileId, state));
  }
  return out;
}

/**
 * Moves aside the reports of earlier files holding `fileId`'s outbox names in `outboxDir` (links in
 * the archive, then the new place recorded, one holder at a time). The caller writes `fileId`'s whole
 * report set next, which replaces what is left under them.
 */
async function moveAsideEarlierReports(
  ledger: LedgerPort,
  fileId: number,
  outboxDir: string,
  now = ledgerNow(),
): Promise<void> {
  if (ledger.readOnly) return;
  // another folder (a configuration changed since) is no collision
  const holders = (await ledger.reportHolders(fileId)).filter(
    (h) => (h.outboxDir ?? outboxDir) === outboxDir,
  );
  // only the newest can still have its files under those names: an older one's were replaced before
  // this was built (ledgers of older versions), and it only needs its new place for later rewrites
  let withFiles = true;
  for (const holder of holders) {
    try {
      const place = await moveReportSetAside(holder, outboxDir, withFiles, (dir, stem) =>
        ledger.reportPlaceTaken(dir, stem, holder.id),
      );
      await ledger.relocateReport(holder.id, place.archiveDir, place.stem, now);
    } catch (err) {
      throw moveAsideError(holder, err);
    }
    withFiles = false;
  }
}

export interface SettleResult {
  /** Every document is final: the file was marked done, reported for the last time and archived. */
  settled: boolean;
  report?: FileReportResult;
  /** Where the original went; undefined when it was already gone (archived before a crash). */
  archivedPath?: string;
  /**
   * The original changed after its documents were released: flagged now, left in place, not archived;
   * what became of the documents of its earlier content, counted (sentFromEarlier).
   */
  changedAfterSend?: string;
}

/**
 * The end of a file's life, safe to repeat after a crash at any step: when every document is final
 * → file `done` → final report → original to `<outboxDir>/archive/` → recorded. A file not yet
 * complete is left alone (write a progress report with `writeFileReport`).
 */
export interface SettleOptions extends FileReportOptions {
  now?: number;
  /**
   * Move the original to the archive. False for a file that did not come from an inbox folder
   * (`edoc-bridge submit FILE` leaves the operator's file where it is). @defaultValue true
   */
  archive?: boolean;
}

/**
 * The first step of settling: an open file whose documents are all final is marked done. True when it
 * was. The progress read only saves a write; finishFile itself re-checks in its transaction that every
 * document is final (an operator's retry may have re-queued one since).
 */
export async function finishIfFinal(
  ledger: LedgerPort,
  file: FileRow,
  now = ledgerNow(),
): Promise<boolean> {
  if (file.state !== 'open' || !(await ledger.fileProgress(file.id)).final) return false;
  await ledger.finishFile(file.id, now);
  return true;
}

/**
 * Of the files a report pass found complete, those of companies this process runs are marked done
 * together before any is settled: their transactions share one commit (one fsync, not one per file),
 * each still done before its final report (settleFile finds it done). A head start only: one not
 * finished here (the ledger unreachable) is left to settleFile, which says why.
 */
export async function finishTogether(
  ledger: LedgerPort,
  companies: CompanyView,
  fileIds: readonly number[],
): Promise<void> {
  if (fileIds.length < 2 || ledger.readOnly) return;
  await Promise.all(
    fileIds.map(async (fileId) => {
      try {
        const file = await ledger.getFile(fileId);
        if (file !== undefined && companies.owns(file.company)) await finishIfFinal(ledger, file);
      } catch {
        // settleFile takes the step again and reports what failed
      }
    }),
  );
}

export async function settleFile(
  ledger: LedgerPort,
  fileId: number,
  outboxDir: string,
  options: SettleOptions = {},
): Promise<SettleResult> {
  const now = options.now ?? ledgerNow();
  let file = await ledger.getFile(fileId);
  if (!file) throw new Error(`settleFile: no file ${fileId} in the ledger`);
  if (await finishIfFinal(ledger, file, now)) file = (await ledger.getFile(fileId)) ?? file;
  if (file.state !== 'done' && file.state !== 'failed-read') return { settled: false };
  // a read that failed half-way may still have documents in flight: their outcomes come first
  if (file.state === 'failed-read' && !(await ledger.fileProgress(fileId)).final)
    return { settled: false };
  const out: SettleResult = { settled: true };
  const together = options.together ?? AT_ONCE;
  const archive = file.archivedPath === null && options.archive !== false;
  // an export in two files: both parts are the original (map/parts.ts)
  const set = setFilesOfRow(file);
  // Content other than what was read is never archived as the processed original: it stays in the inbox
  // (taken again as a new file), and this file's report says so. A duplicate-file row read nothing.
  if (
    archive &&
    file.state === 'done' &&
    file.duplicateOf === null &&
    !ledger.readOnly &&
    (set !== undefined
      ? await setState(set, file.sha256)
      : await originalState(file.path, { size: file.size, sha256: file.sha256 })) === 'changed'
  ) {
    const sent = sentFromEarlier(await ledger.fileProgress(fileId));
    const flagged = await ledger.flagChangedAfterSend(
      fileId,
      {
        code: CHANGED_AFTER_SEND,
        message:
          `${file.name} changed after its documents were released for sending, ${sent}. The changed file was ` +
          'not archived; it stays in the inbox and is taken as a new file.',
      },
      now,
    );
    if (flagged) out.changedAfterSend = sent;
    file = (await ledger.getFile(fileId)) ?? file;
  }
  if (file.reportState !== 'final')
    out.report = await writeFileReport(ledger, fileId, outboxDir, options);
  if (archive && set !== undefined) {
    const archived = await archiveSet(set, file.sha256, path.join(outboxDir, 'archive'));
    // the archive watch looks at single files only: a set's parts are not watched after the move
    await together(() => ledger.markArchived(fileId, archived ?? '', now));
  } else if (archive) {
    const archived = await archiveOriginal(file.path, path.join(outboxDir, 'archive'), {
      size: file.size,
      sha256: file.sha256,
    });
    // '' records "nothing left to move" so the file is not retried at every start
    await together(() => ledger.markArchived(fileId, archived ?? '', now));
    if (archived !== undefined) out.archivedPath = archived;
  } else if (file.archivedPath === null) {
    // a file that stays where it is (edoc-bridge submit): nothing to move, and nothing left to settle at the next start
    await together(() => ledger.markArchived(fileId, '', now));
  }
  return out;
}
