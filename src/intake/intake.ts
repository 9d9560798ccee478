/**
 * Intake of one complete input file: hash → ledger (content dedup) → read/map
 * → validate → documents into the ledger in batches, held back → verify → release.
 * Reading streams, so memory does not grow with the file. No document is sent
 * before the whole file was read and found unchanged: same inode, size and
 * mtime as when it was hashed, and the bytes the documents came from hash to
 * the recorded SHA-256 (hashed as they were read, no extra pass). A file that
 * changed while read is dropped from the ledger (nothing of it was sent) and
 * taken again once stable; one that changes after its documents were released
 * gets EDOC_READ_CHANGED_AFTER_SEND (ledger recordFile, report settleFile).
 */
import { ledgerNow } from '../policy/ledger-clock.js';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { configSecrets, secretScrubberOf } from '../config/secrets.js';
import { inInboxFolder, outboxDir } from './folders.js';
import { noDocumentsError } from '../read/no-documents.js';
import { EdocError, isEdocError } from '../errors.js';
import type { ReadDetails } from '../ledger/files.js';
import { isStorageFull, storageFullError } from '../storage/storage-full.js';
import type { FileError } from '../ledger/types.js';
import type { AppLogger } from '../log/logger.js';
import { colombiaToday } from '../policy/dates.js';
import { isGone, sameSnapshot, snapshotOf, type FileSnapshot } from '../read/file-snapshot.js';
import { hashFile } from '../read/hash.js';
import { sentFromEarlier } from '../report/result-file.js';
import { hashSet, setChangedSince } from './set-hash.js';
import { posTipoFor } from '../kinds/index.js';
import { bounded, readDocumentBatches, type ReadJob } from './intake-documents.js';
import { readingFile } from './heap-growth.js';
import { checkRanges, insertBatch } from './intake-batches.js';
import type { DroppedFile, IntakeContext, IntakeOutcome } from './intake-types.js';

export type { DroppedFile, IntakeContext, IntakeOutcome } from './intake-types.js';

/** The PostgreSQL ledger could not be used (connection cut, server away) or refused this node the company (fenced). */
export function ledgerUnavailable(err: unknown): boolean {
  return (
    isEdocError(err, 'EDOC_LEDGER_CONNECTION_LOST') ||
    isEdocError(err, 'EDOC_LEDGER_UNREACHABLE') ||
    isEdocError(err, 'EDOC_CLUSTER_FENCED')
  );
}

const MARKER_DONE: ReadonlySet<IntakeOutcome> = new Set<IntakeOutcome>([
  'read',
  'resumed',
  'duplicate-file',
  'failed-read',
]);

/** Whether a file's done marker has done its work: the file is in the ledger for good (not changed, not interrupted). */
export function markerDone(outcome: IntakeOutcome): boolean {
  return MARKER_DONE.has(outcome);
}

export async function intakeFile(
  ctx: IntakeContext,
  dropped: DroppedFile,
): Promise<{ fileId?: number; outcome: IntakeOutcome }> {
  const { ledger, logger } = ctx;
  // an export in two files is one unit, known by the set's name (map/parts.ts setName)
  const name = dropped.parts?.name ?? path.basename(dropped.path);
  const log = logger.child({ file: name, kind: dropped.kind, company: dropped.company.alias });
  let hash;
  try {
    hash = await contentHash(ctx, dropped);
  } catch (err) {
    if (isEdocError(err, 'EDOC_READ_CHANGED') && err.context.reason === 'changed') {
      log.warn(
        { code: 'EDOC_READ_CHANGED', reason: 'changed' },
        'the file changed while it was hashed: it is taken again once it is unchanged',
      );
      return { outcome: 'changed' };
    }
    log.warn(
      { err, code: isEdocError(err) ? err.code : 'EDOC_READ_CHANGED' },
      'input file vanished before it could be read',
    );
    return { outcome: 'gone' };
  }
  const rec = await ledger.recordFile({
    path: dropped.path,
    name,
    size: hash.size,
    sha256: hash.sha256,
    kind: dropped.kind,
    company: dropped.company.alias,
    now: ledgerNow(),
    outboxDir: outboxDir(ctx.config, dropped.company.alias, dropped.kind),
    archive: inInboxFolder(ctx.config, dropped.path),
    ...(dropped.originalName === undefined ? {} : { originalName: dropped.originalName }),
  });
  dropped.recorded?.();
  if (rec.changedAfterSend?.newlyFlagged === true) {
    // what became of the earlier content's documents so far (some may still be on their way)
    const sent = sentFromEarlier(await ledger.fileProgress(rec.changedAfterSend.fileId));
    log.error(
      {
        code: 'EDOC_READ_CHANGED_AFTER_SEND',
        earlierFile: rec.changedAfterSend.fileId,
        sha256: hash.sha256,
      },
      `FILE CHANGED AFTER SENDING BEGAN: ${sent}; the earlier report carries the error, ` +
        'the original is not archived, and the new content is taken as a new file',
    );
  }
  if (rec.changedAfterSend !== undefined) ctx.onFileChanged(rec.changedAfterSend.fileId);
  if (rec.outcome === 'duplicate') {
    log.warn(
      { code: 'EDOC_LEDGER_DUPLICATE_FILE', duplicateOf: rec.duplicateOfFileId },
      'same content was taken before: not sent again',
    );
    ctx.onFileChanged(rec.fileId);
    return { fileId: rec.fileId, outcome: 'duplicate-file' };
  }
  if (rec.state !== 'reading') {
    // Left unfinished by an earlier run: its documents are in the ledger already.
    log.info({ state: rec.state }, 'resuming a file from an earlier run');
    ctx.onDocuments(dropped.company.alias);
    ctx.onFileChanged(rec.fileId);
    return { fileId: rec.fileId, outcome: 'resumed' };
  }
  // left `reading` by an earlier attempt: read again from the start, under the mapping in force now
  const removed = rec.outcome === 'resumed' ? await ledger.readAgain(rec.fileId) : 0;
  if (removed > 0) ctx.onNumbersFreed?.(dropped.company.alias);
  log.info(
    { size: hash.size, sha256: hash.sha256, ...(removed > 0 && { readAgain: removed }) },
    'file taken',
  );
  let details: ReadDetails | undefined;
  const reading = readingFile(hash.size);
  try {
    const mapping = await ctx.mapping(dropped.kind);
    const master = await ctx.masterTables?.(mapping);
    const job: ReadJob = {
      path: dropped.path,
      kind: dropped.kind,
      company: { alias: dropped.company.alias, nit: dropped.company.nit },
      ...(mapping ? { mapping } : {}),
      ...(master ? { master } : {}),
      expect: { size: hash.size, mtimeMs: hash.mtimeMs },
      ...('text' in hash && { text: hash.text }),
      maxRecordBytes: ctx.config.read.maxRecordBytes,
      today: ctx.today ?? colombiaToday(),
      ...(dropped.parts
        ? { parts: { header: dropped.parts.header.path, lines: dropped.parts.lines.path } }
        : {}),
      // a routed export may hold POS documents whatever its folder
      posTipo: posTipoFor(ctx.config.kinds.pos, name),
    };
    const secrets = secretScrubberOf(ctx.config);
    // On the intake worker where the daemon has one (the second core is idle while a file is read), else here.
    const opened = ctx.reader
      ? await ctx.reader.read(job, configSecrets(ctx.config), ctx.signal)
      : await readDocumentBatches(job, secrets, ctx.signal);
    // recorded with the end of the read (one commit less per file), or before a failed read is recorded
    details = opened.details;
    if (opened.details.format !== 'csv' && opened.details.encoding === 'windows-1252') {
      log.warn(
        { code: 'EDOC_READ_NOT_UTF8', encoding: 'windows-1252' },
        'the file is not UTF-8: read as Windows-1252 (the rule for CSV files); check its accented letters, and have the ERP save JSON as UTF-8',
      );
    }
    let count = 0;
    for await (const batch of opened.batches) {
      // a number outside every active range of its prefix: refused here, as invalid, before it is stored
      if (ctx.checkNumber !== undefined)
        await checkRanges(ctx.checkNumber, batch, dropped, secretScrubberOf(ctx.config));
      await insertBatch(ledger, rec.fileId, batch, dropped, log);
      count += batch.length;
      if (ctx.signal?.aborted) {
        log.info(
          { documents: count },
          'stopping: the file will be read again from its start at the next start',
        );
        return { fileId: rec.fileId, outcome: 'interrupted' };
      }
    }
    const changed =
      dropped.parts && 'header' in hash
        ? await setChangedSince(dropped.parts, hash, opened.sha256())
        : await changedSince(
            dropped.path,
            hash as FileSnapshot & { sha256: string },
            opened.sha256(),
          );
    if (changed === 'gone')
      throw new EdocError('EDOC_READ_CHANGED', `${name} disappeared while it was read`, {
        file: name,
        reason: 'gone',
      });
    if (changed === 'changed') return dropChanged(ctx, rec.fileId, dropped.company.alias, log);
    if (count === 0) throw noDocumentsError(name, mapping);
    await ledger.finishReading(rec.fileId, undefined, opened.details);
    log.info({ documents: count }, 'file read');
    ctx.onDocuments(dropped.company.alias);
    ctx.onFileChanged(rec.fileId);
    await touchSettledNotes(ctx, rec.fileId, dropped.company.alias);
    return { fileId: rec.fileId, outcome: 'read' };
  } catch (err) {
    if (ctx.signal?.aborted && err instanceof Error && err.name === 'AbortError') {
      log.info('stopping: the file will be read again at the next start');
      return { fileId: rec.fileId, outcome: 'interrupted' };
    }
    // A full disk is not the file's fault: it stays `reading` and is taken again when space returns.
    if (isStorageFull(err)) throw storageFullError(err, `the ledger (reading ${name})`);
    // Nor is a ledger out of reach (its connection cut) or a lease lost: the file stays `reading`, taken
    // again once the ledger answers, or by the company's new owner; never failed for the ledger's fault.
    if (ledgerUnavailable(err)) throw err;
    // gone: reported below like any file that cannot be read (nothing of it was released, so nothing was sent)
    if (isEdocError(err, 'EDOC_READ_CHANGED') && err.context.reason !== 'gone')
      return dropChanged(ctx, rec.fileId, dropped.company.alias, log);
    // the intake worker was replaced for another file's sake (intake-reader.ts): this one is read again
    if (isEdocError(err, 'EDOC_READ_WORKER') && err.context.again === true) {
      await ledger.dropIntake(rec.fileId, { reason: 'the intake worker was replaced' });
      await touchSettledNotes(ctx, rec.fileId, dropped.company.alias);
      log.warn(
        { code: 'EDOC_READ_WORKER', again: true },
        'the intake worker was replaced while it read this file (another file stopped it): read again from the start',
      );
      return { outcome: 'again' };
    }
    const code = isEdocError(err) ? err.code : 'EDOC_READ_CHANGED';
    // a file deleted once taken: the reader's or the file system's words name the inbox path, not the outcome
    const gone =
      (isEdocError(err, 'EDOC_READ_CHANGED') && err.context.reason === 'gone') ||
      (!isEdocError(err) && isGone(err));
    const message = gone
      ? `${name} disappeared while it was read: nothing of it was sent. Drop it again to send it.`
      : // the report names the file as dropped: its inbox path is gone once it is archived
        (err instanceof Error ? err.message : String(err)).split(dropped.path).join(name);
    log.error({ code, err }, 'file could not be read');
    if (isEdocError(err) || isFsError(err)) {
      if (details !== undefined) await ledger.setReadDetails(rec.fileId, details);
      const secrets = secretScrubberOf(ctx.config);
      const error = fileErrorOf(code, bounded(message, secrets), err, (v) => bounded(v, secrets));
      // refused whole: what was stored of it is no document of the file (ledger/file-reading.ts)
      const freed =
        code === 'EDOC_MAP_FORMAT_MISMATCH'
          ? await ledger.refuseWhole(rec.fileId, error)
          : await ledger.failRead(rec.fileId, error);
      if (freed > 0) ctx.onNumbersFreed?.(dropped.company.alias);
      ctx.onFileChanged(rec.fileId);
      await touchSettledNotes(ctx, rec.fileId, dropped.company.alias);
      return { fileId: rec.fileId, outcome: 'failed-read' };
    }
    throw err;
  } finally {
    reading();
  }
}

/**
 * What differs between the file now and the bytes the documents came from: 'gone', 'changed', or
 * undefined when it is the same file (inode, size, mtime) and the bytes read hash to the recorded hash.
 */
async function changedSince(
  file: string,
  taken: FileSnapshot & { sha256: string },
  readSha256: string,
): Promise<'gone' | 'changed' | undefined> {
  try {
    const now = snapshotOf(await stat(file));
    return sameSnapshot(now, taken) && readSha256 === taken.sha256 ? undefined : 'changed';
  } catch (err) {
    if (isGone(err)) return 'gone';
    throw err;
  }
}

/** The notes that waited for this file's read were settled with its end (ledger/reference-waits.ts): their reports are due. */
async function touchSettledNotes(
  ctx: IntakeContext,
  fileId: number,
  company: string,
): Promise<void> {
  const files = await ctx.ledger.takeSettledNotes(fileId);
  if (files.length === 0) return;
  ctx.onDocuments(company);
  for (const f of files) ctx.onFileChanged(f);
}

/** Nothing of the file was released: its intake leaves the ledger, and the watcher takes the file again once stable. */
async function dropChanged(
  ctx: IntakeContext,
  fileId: number,
  company: string,
  log: Pick<AppLogger, 'warn'>,
): Promise<{ fileId?: number; outcome: IntakeOutcome }> {
  await ctx.ledger.dropIntake(fileId, { reason: 'changed while it was read' });
  await touchSettledNotes(ctx, fileId, company);
  log.warn(
    { code: 'EDOC_READ_CHANGED', reason: 'changed' },
    'the file changed while it was read: nothing of it was sent; it is taken again once it is unchanged',
  );
  return { outcome: 'changed' };
}

/** The file's (or set's) content hash: on the intake worker where there is one, here if it stopped. */
async function contentHash(ctx: IntakeContext, dropped: DroppedFile) {
  if (dropped.parts) return hashSet(dropped.parts);
  if (ctx.reader === undefined) return hashFile(dropped.path);
  try {
    return await ctx.reader.hash(dropped.path);
  } catch (err) {
    if (!isEdocError(err, 'EDOC_READ_WORKER')) throw err;
    return hashFile(dropped.path);
  }
}

/** A file-level error as the ledger keeps it, with the column and row or line where the reader knew them. */
function fileErrorOf(
  code: string,
  message: string,
  err: unknown,
  shown: (value: string) => string,
): FileError {
  const context = isEdocError(err) ? err.context : {};
  // the cell at fault (a number in the other convention), as a document's problem gives its value
  const value = typeof context.value === 'string' && context.value !== '' ? context.value : '';
  const columns = Array.isArray(context.columns) ? context.columns.map(String) : undefined;
  const field =
    columns?.join(', ') ??
    [context.column, context.field].find((v): v is string => typeof v === 'string');
  return {
    code,
    message,
    ...(field !== undefined && { field }),
    ...(typeof context.row === 'number' && { rows: [context.row] }),
    ...(typeof context.line === 'number' && { lines: [context.line] }),
    ...(value !== '' && { value: shown(value) }),
  };
}

function isFsError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';
}
