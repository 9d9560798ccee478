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
import type { CompanyConfig, Config } from '../config/schema.js';
import { configSecrets, secretScrubberOf } from '../config/secrets.js';
import { inInboxFolder, outboxDir } from './folders.js';
import { EdocError, isEdocError } from '../errors.js';
import type { ReadDetails } from '../ledger/files.js';
import type { LedgerPort } from '../ledger/port.js';
import { isStorageFull, storageFullError } from '../storage/storage-full.js';
import { makeKey } from '../ledger/rows.js';
import type { FileError, NewDocument } from '../ledger/types.js';
import type { AppLogger } from '../log/logger.js';
import { logDocumentFinal } from '../log/document-final.js';
import type { SecretScrubber } from '../log/secrets.js';
import type { Mapping } from '../map/mapping-types.js';
import type { MasterTables } from '../map/master-tables.js';
import { colombiaToday } from '../policy/dates.js';
import { isGone, sameSnapshot, snapshotOf, type FileSnapshot } from '../read/file-snapshot.js';
import { hashFile } from '../read/hash.js';
import { hashSet, setChangedSince, type SetPart } from './set-hash.js';
import type { DocumentKey } from '../kinds/document-key.js';
import { posTipoFor, type DocumentKind } from '../kinds/index.js';
import type { Problem } from '../validate/problem.js';
import { bounded, readDocumentBatches, toReportProblem, type ReadJob } from './intake-documents.js';
import type { IntakeReader } from './intake-reader.js';

export interface IntakeContext {
  ledger: LedgerPort;
  config: Readonly<Config>;
  logger: AppLogger;
  mapping(kind: DocumentKind): Promise<Mapping | undefined>;
  /** The master-data tables a mapping reads (`lookup()`), newest version each; absent: none. */
  masterTables?(mapping: Mapping | undefined): Promise<MasterTables | undefined>;
  /** Documents of this company became due. */
  onDocuments(company: string): void;
  /** The file's report should be (re)written; it may be complete. */
  onFileChanged(fileId: number): void;
  /** Pinned "today" (tests); Colombia's date otherwise. */
  today?: string;
  /** Stop reading between batches (daemon shutdown): the file stays `reading` and is re-read next start. */
  signal?: AbortSignal;
  /** Reads on the intake worker (the daemon's); absent: the file is read on this thread. */
  reader?: IntakeReader;
  /**
   * The numbering-range check (ranges/range-watch.ts): why a document's own number may not be sent,
   * or undefined. A promise only when it must read the ranges again (most documents answer at once).
   */
  checkNumber?(
    company: string,
    kind: DocumentKind,
    key: DocumentKey,
  ): Problem | undefined | Promise<Problem | undefined>;
}

export interface DroppedFile {
  path: string;
  kind: DocumentKind;
  company: CompanyConfig;
  size?: number;
  mtimeMs?: number;
  /** The name's original bytes (hex) when they were not UTF-8 and the watcher renamed the file. */
  originalName?: string;
  /** An export in two files: its parts (`path` is the header's) and the set's name (map/parts.ts setName). */
  parts?: { header: SetPart; lines: SetPart; name: string };
}

/**
 * `changed`: the file changed while it was read; its intake was dropped (nothing sent) and the caller
 * takes it again once it is stable.
 */
/** The PostgreSQL ledger could not be used (connection cut, server away) or refused this node the company (fenced). */
export function ledgerUnavailable(err: unknown): boolean {
  return (
    isEdocError(err, 'EDOC_LEDGER_CONNECTION_LOST') ||
    isEdocError(err, 'EDOC_LEDGER_UNREACHABLE') ||
    isEdocError(err, 'EDOC_CLUSTER_FENCED')
  );
}

export type IntakeOutcome =
  'read' | 'resumed' | 'duplicate-file' | 'failed-read' | 'gone' | 'interrupted' | 'changed';

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
    hash = dropped.parts ? await hashSet(dropped.parts) : await hashFile(dropped.path);
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
  if (rec.changedAfterSend?.newlyFlagged === true) {
    log.error(
      {
        code: 'EDOC_READ_CHANGED_AFTER_SEND',
        earlierFile: rec.changedAfterSend.fileId,
        sha256: hash.sha256,
      },
      'FILE CHANGED AFTER SENDING BEGAN: documents were sent from its earlier content; the earlier report carries the error, ' +
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
  log.info({ size: hash.size, sha256: hash.sha256 }, 'file taken');
  let details: ReadDetails | undefined;
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
          'stopping: the file will be read on from the ledger at the next start',
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
    if (changed === 'changed') return dropChanged(ctx, rec.fileId, log);
    if (count === 0)
      throw new EdocError('EDOC_READ_EMPTY', `${name}: the file holds no documents`, {
        file: name,
      });
    await ledger.finishReading(rec.fileId, undefined, opened.details);
    log.info({ documents: count }, 'file read');
    ctx.onDocuments(dropped.company.alias);
    ctx.onFileChanged(rec.fileId);
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
      return dropChanged(ctx, rec.fileId, log);
    const code = isEdocError(err) ? err.code : 'EDOC_READ_CHANGED';
    const message = err instanceof Error ? err.message : String(err);
    log.error({ code, err }, 'file could not be read');
    if (isEdocError(err) || isFsError(err)) {
      if (details !== undefined) await ledger.setReadDetails(rec.fileId, details);
      await ledger.failRead(
        rec.fileId,
        fileErrorOf(code, bounded(message, secretScrubberOf(ctx.config)), err),
      );
      ctx.onFileChanged(rec.fileId);
      return { fileId: rec.fileId, outcome: 'failed-read' };
    }
    throw err;
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

/** Nothing of the file was released: its intake leaves the ledger, and the watcher takes the file again once stable. */
async function dropChanged(
  ctx: IntakeContext,
  fileId: number,
  log: Pick<AppLogger, 'warn'>,
): Promise<{ fileId?: number; outcome: IntakeOutcome }> {
  await ctx.ledger.dropIntake(fileId, { reason: 'changed while it was read' });
  log.warn(
    { code: 'EDOC_READ_CHANGED', reason: 'changed' },
    'the file changed while it was read: nothing of it was sent; it is taken again once it is unchanged',
  );
  return { outcome: 'changed' };
}

/** A file-level error as the ledger keeps it, with the column and row or line where the reader knew them. */
function fileErrorOf(code: string, message: string, err: unknown): FileError {
  const context = isEdocError(err) ? err.context : {};
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
  };
}

/**
 * Stores a batch, then logs the final state of the documents that are final already (invalid, or
 * their number accepted in an earlier file): they never reach a sender, which logs all the others.
 */
async function insertBatch(
  ledger: LedgerPort,
  fileId: number,
  batch: readonly NewDocument[],
  dropped: DroppedFile,
  log: Pick<AppLogger, 'info' | 'warn' | 'error'>,
): Promise<void> {
  const inserted = await ledger.insertDocuments(fileId, batch);
  // settled by an earlier copy of the same content (a resend): never reach a sender either
  const byCopy = new Map((inserted.byEarlierCopy ?? []).map((c) => [c.index, c.state]));
  // stored `duplicate` because their number was accepted in another file (the ledger looked it up as it stored them)
  const byKey = new Set(
    (inserted.byAcceptedKey ?? []).filter((a) => a.fileId !== fileId).map((a) => a.index),
  );
  // ... and of those, the ones whose content is not what was issued under their number: a person must act
  const otherContent = new Map(
    (inserted.byAcceptedKey ?? []).flatMap((a) =>
      a.otherContent === undefined ? [] : [[a.index, a.otherContent]],
    ),
  );
  if (inserted.heldForOtherCompany !== undefined) {
    log.error(
      {
        code: 'EDOC_LEDGER_OTHER_COMPANY',
        held: inserted.heldForOtherCompany.count,
        note: inserted.heldForOtherCompany.message,
      },
      'documents held: the same file content was taken for another company',
    );
  }
  // notes whose referenced document is never issued (held invalid) or unknown to the ledger (sent, with a warning)
  const byReference = new Map((inserted.byReference ?? []).map((r) => [r.index, r]));
  for (const d of batch) {
    const invalid = d.problems !== undefined && d.problems.length > 0;
    const copy = byCopy.get(d.index);
    const other = otherContent.get(d.index);
    const ref = byReference.get(d.index);
    const key = d.number ? makeKey(dropped.company.alias, d.kind ?? dropped.kind, d.number) : null;
    if (other !== undefined) {
      log.error(
        {
          doc: key,
          status: 'duplicate',
          attempts: 0,
          code: 'EDOC_ISSUED_OTHER_CONTENT',
          note: other,
        },
        'document final',
      );
      continue;
    }
    if (ref?.notIssued !== undefined) {
      log.error(
        {
          doc: key ?? `#${d.index}`,
          status: 'invalid',
          attempts: 0,
          code: 'EDOC_LEDGER_REFERENCE_NOT_ISSUED',
          note: ref.notIssued,
        },
        'document final',
      );
      continue;
    }
    if (ref?.unknown !== undefined) {
      log.warn(
        {
          doc: key ?? `#${d.index}`,
          code: 'EDOC_LEDGER_REFERENCE_UNKNOWN',
          references: ref.unknown,
        },
        'the note references a document the ledger does not know (it may be from before the bridge): it is sent',
      );
    }
    if (!invalid && copy === undefined && !byKey.has(d.index)) continue;
    const status = invalid ? 'invalid' : (copy ?? 'duplicate');
    // the code the outbox shows: the document's first problem, or the ledger's reason for settling it here
    const code = invalid
      ? d.problems![0].code
      : copy === 'invalid'
        ? 'EDOC_LEDGER_EARLIER_COPY_OPEN'
        : copy === 'duplicate'
          ? 'EDOC_LEDGER_DUPLICATE_DOCUMENT'
          : 'EDOC_LEDGER_DUPLICATE_KEY';
    logDocumentFinal(log, {
      doc: key ?? `#${d.index}`,
      status,
      attempts: 0,
      ...(code === undefined ? {} : { code }),
    });
  }
}

/** A number outside every active range of its prefix is refused here, as `invalid`: nothing is sent. */
async function checkRanges(
  check: NonNullable<IntakeContext['checkNumber']>,
  batch: NewDocument[],
  dropped: DroppedFile,
  secrets: SecretScrubber,
): Promise<void> {
  for (const next of batch) {
    if (next.number === null || next.number === undefined || (next.problems?.length ?? 0) > 0)
      continue;
    const slash = next.number.lastIndexOf('/');
    const key: DocumentKey = {
      prefix: next.number.slice(0, slash),
      number: next.number.slice(slash + 1),
    };
    const answer = check(dropped.company.alias, next.kind ?? dropped.kind, key);
    const refused = answer instanceof Promise ? await answer : answer;
    if (refused !== undefined) next.problems = [toReportProblem(refused, secrets)];
  }
}

function isFsError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';
}
