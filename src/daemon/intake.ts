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
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { CompanyConfig, Config } from '../config/schema.js';
import { secretScrubberOf } from '../config/secrets.js';
import { inInboxFolder, outboxDir } from './folders.js';
import { EdocError, isEdocError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { isStorageFull, storageFullError } from '../ledger/storage-full.js';
import { makeKey } from '../ledger/rows.js';
import type { FileError, NewDocument, ReportProblem } from '../ledger/types.js';
import type { AppLogger } from '../log/logger.js';
import type { SecretScrubber } from '../log/secrets.js';
import type { Mapping } from '../map/mapping-types.js';
import { colombiaToday } from '../policy/dates.js';
import { excerpt } from '../policy/excerpt.js';
import { isGone, sameSnapshot, snapshotOf, type FileSnapshot } from '../read/file-snapshot.js';
import { hashFile } from '../read/hash.js';
import { openSource } from '../read/open-source.js';
import type { SourceDocument } from '../read/source-document.js';
import { documentKey, type DocumentKey } from '../kinds/document-key.js';
import type { DocumentKind } from '../kinds/index.js';
import { distinctProblems, type Problem } from '../validate/problem.js';
import { validateDocument } from '../kinds/validate-document.js';

/**
 * Documents committed per ledger transaction while a file is read (held back: none is due before the
 * whole file was read and verified, so a big file's first request leaves after its read).
 */
const INSERT_BATCH = 500;

export interface IntakeContext {
  ledger: Ledger;
  config: Readonly<Config>;
  logger: AppLogger;
  mapping(kind: DocumentKind): Promise<Mapping | undefined>;
  /** Documents of this company became due. */
  onDocuments(company: string): void;
  /** The file's report should be (re)written; it may be complete. */
  onFileChanged(fileId: number): void;
  /** Pinned "today" (tests); Colombia's date otherwise. */
  today?: string;
  /** Stop reading between batches (daemon shutdown): the file stays `reading` and is re-read next start. */
  signal?: AbortSignal;
  /**
   * The numbering-range check (ranges/range-watch.ts): why a document's own number may not be sent,
   * or undefined. A promise only when it must read the ranges again (most documents answer at once).
   */
  checkNumber?(company: string, kind: DocumentKind, key: DocumentKey): Problem | undefined | Promise<Problem | undefined>;
}

export interface DroppedFile {
  path: string;
  kind: DocumentKind;
  company: CompanyConfig;
  size?: number;
  mtimeMs?: number;
  /** The name's original bytes (hex) when they were not UTF-8 and the watcher renamed the file. */
  originalName?: string;
}

/**
 * `changed`: the file changed while it was read; its intake was dropped (nothing sent) and the caller
 * takes it again once it is stable.
 */
export type IntakeOutcome = 'read' | 'resumed' | 'duplicate-file' | 'failed-read' | 'gone' | 'interrupted' | 'changed';

export async function intakeFile(ctx: IntakeContext, dropped: DroppedFile): Promise<{ fileId?: number; outcome: IntakeOutcome }> {
  const { ledger, logger } = ctx;
  const name = path.basename(dropped.path);
  const log = logger.child({ file: name, kind: dropped.kind, company: dropped.company.alias });
  let hash;
  try {
    hash = await hashFile(dropped.path);
  } catch (err) {
    if (isEdocError(err, 'EDOC_READ_CHANGED') && err.context.reason === 'changed') {
      log.warn({ code: 'EDOC_READ_CHANGED', reason: 'changed' }, 'the file changed while it was hashed: it is taken again once it is unchanged');
      return { outcome: 'changed' };
    }
    log.warn({ err, code: isEdocError(err) ? err.code : 'EDOC_READ_CHANGED' }, 'input file vanished before it could be read');
    return { outcome: 'gone' };
  }
  const rec = ledger.recordFile({ path: dropped.path, name, size: hash.size, sha256: hash.sha256, kind: dropped.kind,
    company: dropped.company.alias, now: Date.now(), outboxDir: outboxDir(ctx.config, dropped.company.alias, dropped.kind),
    archive: inInboxFolder(ctx.config, dropped.path),
    ...(dropped.originalName === undefined ? {} : { originalName: dropped.originalName }) });
  if (rec.changedAfterSend?.newlyFlagged === true) {
    log.error({ code: 'EDOC_READ_CHANGED_AFTER_SEND', earlierFile: rec.changedAfterSend.fileId, sha256: hash.sha256 },
      'FILE CHANGED AFTER SENDING BEGAN: documents were sent from its earlier content; the earlier report carries the error, '
      + 'the original is not archived, and the new content is taken as a new file');
  }
  if (rec.changedAfterSend !== undefined) ctx.onFileChanged(rec.changedAfterSend.fileId);
  if (rec.outcome === 'duplicate') {
    log.warn({ code: 'EDOC_LEDGER_DUPLICATE_FILE', duplicateOf: rec.duplicateOfFileId }, 'same content was taken before: not sent again');
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
  try {
    const mapping = await ctx.mapping(dropped.kind);
    const readHash = createHash('sha256');
    const opened = await openSource(dropped.path, dropped.kind, {
      company: { alias: dropped.company.alias, nit: dropped.company.nit },
      ...(mapping ? { mapping } : {}),
      expect: { size: hash.size, mtimeMs: hash.mtimeMs },
      maxRecordBytes: ctx.config.read.maxRecordBytes,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      hash: readHash,
    });
    const secrets = secretScrubberOf(ctx.config);
    // A key as a column name is kept nowhere either: the retry file's header shows [redacted] in its place.
    const header = opened.header === undefined ? null : secrets.scrub(opened.header);
    ledger.setReadDetails(rec.fileId, { format: opened.format, encoding: opened.encoding, header });
    const today = ctx.today ?? colombiaToday();
    let batch: NewDocument[] = [];
    let count = 0;
    for await (const doc of opened.documents) {
      const next = toNewDocument(doc, dropped.kind, dropped.company, today, secrets);
      if (ctx.checkNumber !== undefined && next.number !== null && (next.problems?.length ?? 0) === 0) {
        await checkRange(ctx.checkNumber, next, doc, dropped, secrets);
      }
      batch.push(next);
      count++;
      if (batch.length >= INSERT_BATCH) {
        insertBatch(ledger, rec.fileId, batch, dropped, log);
        batch = [];
        if (ctx.signal?.aborted) {
          log.info({ documents: count }, 'stopping: the file will be read on from the ledger at the next start');
          return { fileId: rec.fileId, outcome: 'interrupted' };
        }
      }
    }
    insertBatch(ledger, rec.fileId, batch, dropped, log);
    const changed = await changedSince(dropped.path, hash, readHash.digest('hex'));
    if (changed === 'gone') throw new EdocError('EDOC_READ_CHANGED', `${name} disappeared while it was read`, { file: name, reason: 'gone' });
    if (changed === 'changed') return dropChanged(ctx, rec.fileId, log);
    if (count === 0) throw new EdocError('EDOC_READ_EMPTY', `${name}: the file holds no documents`, { file: name });
    ledger.finishReading(rec.fileId);
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
    // gone: reported below like any file that cannot be read (nothing of it was released, so nothing was sent)
    if (isEdocError(err, 'EDOC_READ_CHANGED') && err.context.reason !== 'gone') return dropChanged(ctx, rec.fileId, log);
    const code = isEdocError(err) ? err.code : 'EDOC_READ_CHANGED';
    const message = err instanceof Error ? err.message : String(err);
    log.error({ code, err }, 'file could not be read');
    if (isEdocError(err) || isFsError(err)) {
      ledger.failRead(rec.fileId, fileErrorOf(code, bounded(message, secretScrubberOf(ctx.config)), err));
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
async function changedSince(file: string, taken: FileSnapshot & { sha256: string }, readSha256: string):
  Promise<'gone' | 'changed' | undefined> {
  try {
    const now = snapshotOf(await stat(file));
    return sameSnapshot(now, taken) && readSha256 === taken.sha256 ? undefined : 'changed';
  } catch (err) {
    if (isGone(err)) return 'gone';
    throw err;
  }
}

/** Nothing of the file was released: its intake leaves the ledger, and the watcher takes the file again once stable. */
function dropChanged(ctx: IntakeContext, fileId: number, log: Pick<AppLogger, 'warn'>): { fileId?: number; outcome: IntakeOutcome } {
  ctx.ledger.dropIntake(fileId, { reason: 'changed while it was read' });
  log.warn({ code: 'EDOC_READ_CHANGED', reason: 'changed' },
    'the file changed while it was read: nothing of it was sent; it is taken again once it is unchanged');
  return { outcome: 'changed' };
}

/** A file-level error as the ledger keeps it, with the column and row or line where the reader knew them. */
function fileErrorOf(code: string, message: string, err: unknown): FileError {
  const context = isEdocError(err) ? err.context : {};
  const columns = Array.isArray(context.columns) ? context.columns.map(String) : undefined;
  const field = columns?.join(', ') ?? [context.column, context.field].find((v): v is string => typeof v === 'string');
  return {
    code, message,
    ...(field !== undefined && { field }),
    ...(typeof context.row === 'number' && { rows: [context.row] }),
    ...(typeof context.line === 'number' && { lines: [context.line] }),
  };
}

/**
 * Stores a batch, then logs the final state of the documents that are final already (invalid, or
 * their number accepted in an earlier file): they never reach a sender, which logs all the others.
 */
function insertBatch(ledger: Ledger, fileId: number, batch: readonly NewDocument[], dropped: DroppedFile,
  log: Pick<AppLogger, 'info'>): void {
  const inserted = ledger.insertDocuments(fileId, batch);
  // settled by an earlier copy of the same content (a resend): never reach a sender either
  const byCopy = new Map((inserted.byEarlierCopy ?? []).map((c) => [c.index, c.state]));
  // stored `duplicate` because their number was accepted in another file (the ledger looked it up as it stored them)
  const byKey = new Set((inserted.byAcceptedKey ?? []).filter((a) => a.fileId !== fileId).map((a) => a.index));
  for (const d of batch) {
    const invalid = d.problems !== undefined && d.problems.length > 0;
    const copy = byCopy.get(d.index);
    if (!invalid && copy === undefined && !byKey.has(d.index)) continue;
    const key = d.number ? makeKey(dropped.company.alias, dropped.kind, d.number) : null;
    log.info({ doc: key ?? `#${d.index}`, status: invalid ? 'invalid' : copy ?? 'duplicate', attempts: 0 }, 'document final');
  }
}

/** A number outside every active range of its prefix is refused here, as `invalid`: nothing is sent. */
async function checkRange(check: NonNullable<IntakeContext['checkNumber']>, next: NewDocument, doc: SourceDocument,
  dropped: DroppedFile, secrets: SecretScrubber): Promise<void> {
  const key = documentKey(dropped.kind, doc.request);
  if (key === undefined) return;
  const answer = check(dropped.company.alias, dropped.kind, key);
  const refused = answer instanceof Promise ? await answer : answer;
  if (refused !== undefined) next.problems = [toReportProblem(refused, secrets)];
}

function isFsError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';
}

/**
 * What the ledger (and so every report) keeps of a message about the input: configured secrets
 * removed, and never longer than MESSAGE_CHARS — each reader and rule quotes input through
 * policy/excerpt.ts already; this is the backstop for one that does not.
 */
const MESSAGE_CHARS = 1_000;
/** Above an excerpt's own length, so a value the reader cut already is not cut again. */
const VALUE_CHARS = 200;

function bounded(text: string, secrets: SecretScrubber): string {
  return excerpt(secrets.scrub(text), MESSAGE_CHARS);
}

function toNewDocument(doc: SourceDocument, kind: DocumentKind, company: CompanyConfig, today: string, secrets: SecretScrubber): NewDocument {
  const problems: Problem[] = [...doc.problems];
  if (doc.request !== undefined && problems.length === 0) {
    problems.push(...validateDocument(kind, doc.request, { today, issuerNit: company.nit }));
  }
  const key = doc.request === undefined ? undefined : documentKey(kind, doc.request);
  const erpKey = key === undefined && 'key' in doc && typeof doc.key === 'string' && doc.key !== '' ? doc.key : undefined;
  const out: NewDocument = {
    index: doc.index, source: erpKey === undefined ? doc.source : { ...doc.source, erpKey: excerpt(secrets.scrub(erpKey), VALUE_CHARS) }, ownNumber: key !== undefined, raw: doc.raw,
    number: key === undefined ? null : `${key.prefix}/${key.number}`,
    problems: distinctProblems(problems).map((p) => toReportProblem(p, secrets)),
  };
  // The request is checked too: JSON `\u` escapes hide a key from the text, not from the parsed request.
  // A JSON/JSONL document whose text has no escape at all holds every string of its request verbatim in
  // that text, which was just checked, and is stored as that text: no serialisation of it is needed. Any
  // other request's text is made once here, checked, and stored as is.
  const requestText = doc.request === undefined || doc.requestFromRaw === true ? undefined : JSON.stringify(doc.request);
  const escaped = doc.request !== undefined && doc.requestFromRaw === true && doc.raw.includes('\\');
  if (secrets.has(doc.raw) || (requestText !== undefined && secrets.has(requestText))
    || (escaped && secrets.has(JSON.stringify(doc.request)))) {
    // A configured API key inside a document (a key file dropped as .jsonl, a key pasted into a cell):
    // never sent to the authority, and kept nowhere — the retry file gets the text with it redacted.
    out.raw = secrets.scrub(doc.raw);
    // Text that hides the key in escapes (`\u0074…`) is kept as the parsed document with the key redacted.
    if (out.raw === doc.raw && doc.requestFromRaw === true) out.raw = secrets.scrub(JSON.stringify(doc.request));
    out.problems = [{ code: 'EDOC_READ_SECRET', message: 'The document holds a configured API key: it is not sent, and the key is not kept (replaced by [redacted])' },
      ...(out.problems ?? [])];
    return out;
  }
  if (doc.request !== undefined) out.request = doc.request;
  if (doc.requestFromRaw === true) out.requestFromRaw = true;
  else if (requestText !== undefined) out.requestText = requestText;
  return out;
}

function toReportProblem(p: Problem, secrets: SecretScrubber): ReportProblem {
  const out: ReportProblem = { code: p.code, message: bounded(p.message, secrets) };
  const field = p.column ?? (p.path === '' ? undefined : p.path);
  if (field !== undefined) out.field = bounded(field, secrets);
  if (p.value !== undefined) out.value = excerpt(secrets.scrub(p.value), VALUE_CHARS);
  if (p.rows !== undefined) out.rows = p.rows;
  return out;
}
