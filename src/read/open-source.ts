/**
 * The one entry point of the intake stage (read/ with the mapping engine it
 * drives, map/: docs/architecture.md, "Flow"): picks the reader by extension and
 * turns every reason a file cannot be read as a whole into a file-level
 * EdocError before the first document is handed out:
 * - unsupported extension, or a delimited file or spreadsheet whose kind has no mapping -> EDOC_READ_UNSUPPORTED
 * - a spreadsheet that is password-protected, damaged, or lacks the sheet to read ->
 *   EDOC_READ_SHEET_ENCRYPTED / _CORRUPT / _MISSING (read/sheet-source.ts)
 * - zero bytes, only whitespace / blank lines, `[]` -> EDOC_READ_EMPTY
 * - a NUL byte in the first 8 KiB -> EDOC_READ_BINARY; JSON/JSONL bytes that are not UTF-8 are decoded as
 *   Windows-1252, the rule CSV files follow (`encoding` says so; the intake logs one EDOC_READ_NOT_UTF8 warning)
 * - broken JSON -> EDOC_READ_JSON (line, col)
 * - a record (CSV), line (JSONL) or element (JSON) longer than `maxRecordBytes` -> EDOC_READ_RECORD_TOO_LARGE / EDOC_READ_JSON
 * - gone, replaced or modified while read (inode, size, mtime) -> EDOC_READ_CHANGED
 *
 * JSON and JSONL files are read twice, both times streamed: a first pass that
 * validates the whole file and counts its documents (PRODUCT: a file that
 * cannot be parsed gets zero documents, so nothing may be submitted before the
 * end of the file is known to be sound), then the pass the caller iterates.
 * The second pass checks it reads the same bytes, so the only error it can
 * still raise is EDOC_READ_CHANGED.
 */
import type { Hash } from 'node:crypto';
import path from 'node:path';
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isMainThread } from 'node:worker_threads';
import { EdocError, isEdocError } from '../errors.js';
import type { CompanyInfo } from '../map/eval-context.js';
import type { Mapping } from '../map/mapping-types.js';
import { openCsvSource } from './csv-source.js';
import { DEFAULT_MAX_RECORD_BYTES } from './csv-records.js';
import {
  changedError,
  isGone,
  openToRead,
  snapshotOf,
  type FileSnapshot,
} from './file-snapshot.js';
import { readJsonDocuments } from './json-source.js';
import { readJsonlDocuments } from './jsonl-source.js';
import { openSheetSource } from './sheet-source.js';
import { formatOf, type OpenedSource, type SourceDocument } from './source-document.js';
import { utf8Chunks, windows1252Chunks } from './utf8-chunks.js';
import type { DocumentKind } from '../kinds/index.js';
import type { MasterTables } from '../map/master-tables.js';
import type { RowMark } from './row-mark.js';
import { SNIFF_BYTES, type TextFacts } from './text-facts.js';

export interface OpenSourceOptions {
  company: CompanyInfo;
  /** The master-data tables the mapping reads (`lookup()`), one version each. */
  master?: MasterTables;
  /** The kind's mapping; required for `.csv` / `.txt`, ignored for JSON. */
  mapping?: Mapping;
  /** Longest JSONL line accepted (counted in characters after decoding). @defaultValue maxRecordBytes */
  maxLineBytes?: number;
  /**
   * Longest record accepted (config `read.maxRecordBytes`): a CSV record in bytes, a JSON element or
   * JSONL line in characters (the same for ASCII). @defaultValue 32 MiB
   */
  maxRecordBytes?: number;
  /** Stops reading (daemon shutdown) between chunks of the file: the read ends with an AbortError. */
  signal?: AbortSignal;
  /** Size and mtime the caller saw (watcher, hashFile); a different file is EDOC_READ_CHANGED. */
  expect?: { size: number; mtimeMs: number };
  /**
   * Fed with every byte of the pass the documents come from (the one the caller iterates), so the
   * caller can check they are the bytes it hashed before (no extra pass over the file).
   */
  hash?: Hash;
  /** Told which row of a delimited file or spreadsheet is being mapped (read/row-mark.ts). */
  mark?: RowMark;
  /**
   * What the content hash's pass saw of these bytes (`expect`'s file; read/text-facts.ts): no NUL sniff
   * of its own, and a JSONL file whose lines all fit is read in one pass, in the encoding it saw.
   */
  text?: TextFacts;
}

export interface OpenedFile extends OpenedSource {
  /** Number of documents, known up front for JSON / JSONL (the validating pass counted them). */
  count?: number;
  size: number;
  mtimeMs: number;
}

export { formatOf };

export async function openSource(
  file: string,
  kind: DocumentKind,
  options: OpenSourceOptions,
): Promise<OpenedFile> {
  const format = formatOf(file);
  if (format === undefined) {
    const hint =
      path.extname(file).toLowerCase() === '.xlsb'
        ? ' (a binary .xlsb workbook: save it as .xlsx)'
        : '';
    throw new EdocError(
      'EDOC_READ_UNSUPPORTED',
      `${path.basename(file)}: unsupported file type${hint} (use .json, .jsonl, .csv, .txt, .xlsx or .xls)`,
      { file, kind },
    );
  }
  const snapshot = await snapshotFile(file);
  if (
    options.expect !== undefined &&
    (options.expect.size !== snapshot.size || options.expect.mtimeMs !== snapshot.mtimeMs)
  ) {
    throw changedError(file, 'changed after it was picked up');
  }
  if (snapshot.size === 0) throw new EdocError('EDOC_READ_EMPTY', `${file} is empty`, { file });
  const meta = { size: snapshot.size, mtimeMs: snapshot.mtimeMs };
  if (format === 'xlsx' || format === 'xls') {
    if (options.mapping === undefined) {
      throw new EdocError(
        'EDOC_READ_UNSUPPORTED',
        `${path.basename(file)}: no mapping is configured for kind ${kind}, so spreadsheets cannot be read`,
        { file, kind },
      );
    }
    const sheet = await openSheetSource(file, options.mapping, {
      kind,
      company: options.company,
      maxRecordBytes: options.maxRecordBytes,
      ...(options.master ? { master: options.master } : {}),
      signal: options.signal,
      ...(options.hash ? { hash: options.hash } : {}),
      ...(options.mark ? { mark: options.mark } : {}),
    });
    return { ...sheet, ...meta };
  }
  if (options.text === undefined) await assertText(file);
  else if (options.text.nulInHead) throw await notText(file);

  if (format === 'csv') {
    if (options.mapping === undefined) {
      throw new EdocError(
        'EDOC_READ_UNSUPPORTED',
        `${path.basename(file)}: no mapping is configured for kind ${kind}, so delimited files cannot be read`,
        { file, kind },
      );
    }
    const csv = await openCsvSource(file, options.mapping, {
      kind,
      company: options.company,
      maxRecordBytes: options.maxRecordBytes,
      ...(options.master ? { master: options.master } : {}),
      signal: options.signal,
      ...(options.hash ? { hash: options.hash } : {}),
      ...(options.mark ? { mark: options.mark } : {}),
    });
    return { ...csv, ...meta };
  }

  const maxRecord = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const lineLimit = options.maxLineBytes ?? maxRecord;
  // UTF-8 (a BOM dropped); a file that is not is decoded as Windows-1252, as a CSV file with `encoding: auto` is
  let encoding: 'utf-8' | 'windows-1252' = 'utf-8';
  const chunks = (hash?: Hash): AsyncGenerator<string> =>
    abortable(
      encoding === 'utf-8'
        ? utf8Chunks(file, snapshot, hash)
        : windows1252Chunks(file, snapshot, hash),
      options.signal,
    );
  const read = (hash?: Hash, parse = true): AsyncGenerator<SourceDocument> =>
    format === 'json'
      ? readJsonDocuments(chunks(hash), file, { maxElementChars: maxRecord })
      : readJsonlDocuments(chunks(hash), file, {
          maxLineChars: lineLimit,
          parse,
        });
  const countAll = async (): Promise<number> => {
    let count = 0;
    // JSONL: a line's content is that document's problem, never the file's, so the first pass parses no line.
    for await (const _doc of read(undefined, false)) count++;
    return count;
  };
  // the hash's pass saw the bytes: not UTF-8 is read as Windows-1252 at once, with no UTF-8 attempt
  const seen = options.text;
  if (seen?.utf8 === false) encoding = 'windows-1252';
  // JSONL whose lines all fit (characters ≤ bytes in UTF-8 and Windows-1252: a line within the limit in
  // bytes is within it read): the only file-level error a first pass could meet is the bytes not being
  // the hashed ones any more, so there is none
  if (
    format === 'jsonl' &&
    seen?.longestLineBytes !== undefined &&
    seen.longestLineBytes <= lineLimit
  )
    return {
      format,
      encoding,
      documents: changedIfUnlikeHashed(read(options.hash), file, seen.utf8),
      ...meta,
    };
  let count: number;
  try {
    count = await countAll();
  } catch (err) {
    if (!isEdocError(err, 'EDOC_READ_BINARY')) throw err; // the only EDOC_READ_BINARY of this pass: bytes not UTF-8
    encoding = 'windows-1252';
    count = await countAll();
  }
  return { format, encoding, documents: read(options.hash), count, ...meta };
}

/** The chunks, checking the stop signal before each: a long JSON element or line cannot hold a shutdown back. */
async function* abortable<T>(
  items: AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  signal?.throwIfAborted();
  for await (const item of items) {
    signal?.throwIfAborted();
    yield item;
  }
}

async function snapshotFile(file: string): Promise<FileSnapshot> {
  try {
    // on the intake worker a blocking stat (read/file-snapshot.ts, smallFile, says why)
    const stats = isMainThread ? await stat(file) : statSync(file);
    if (!stats.isFile())
      throw new EdocError('EDOC_READ_UNSUPPORTED', `${file} is not a regular file`, { file });
    return snapshotOf(stats);
  } catch (err) {
    if (isGone(err)) throw changedError(file, 'disappeared before it was read', err);
    throw err;
  }
}

/**
 * The documents of a JSONL read in the encoding the hash's pass saw, which found every line within the
 * limit: bytes that are not UTF-8 where it saw UTF-8, or a line too long (the only file-level
 * EDOC_READ_JSON of a JSONL read), are not the bytes it hashed, so the file changed (taken again once it
 * is unchanged) — never refused for bytes the hash did not see.
 */
async function* changedIfUnlikeHashed(
  documents: AsyncGenerator<SourceDocument>,
  file: string,
  sawUtf8: boolean,
): AsyncGenerator<SourceDocument> {
  try {
    yield* documents;
  } catch (err) {
    if ((sawUtf8 && isEdocError(err, 'EDOC_READ_BINARY')) || isEdocError(err, 'EDOC_READ_JSON'))
      throw changedError(file, 'changed while it was read', err);
    throw err;
  }
}

/** NUL bytes do not occur in text in any encoding we accept (UTF-8, Windows-1252, Latin-1). */
async function assertText(file: string): Promise<void> {
  const handle = await openToRead(file, 'disappeared before it was read');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    if (buffer.subarray(0, bytesRead).includes(0)) throw await notText(file, buffer);
  } finally {
    await handle.close();
  }
}

/**
 * UTF-16 text (Excel's "Unicode Text", a BOM FF FE or FE FF) is full of NUL bytes and not read: said so,
 * since "not a text file" would send the user looking for a damaged export.
 */
async function notText(file: string, head?: Buffer): Promise<EdocError> {
  let bom = head;
  if (bom === undefined) {
    const handle = await openToRead(file, 'disappeared before it was read');
    try {
      bom = Buffer.alloc(2);
      await handle.read(bom, 0, 2, 0);
    } finally {
      await handle.close();
    }
  }
  const utf16 = (bom[0] === 0xff && bom[1] === 0xfe) || (bom[0] === 0xfe && bom[1] === 0xff);
  return new EdocError(
    'EDOC_READ_BINARY',
    utf16
      ? `${file} is UTF-16 text (Excel's "Unicode Text"), which is not read: save the export as "CSV UTF-8" or as CSV`
      : `${file} is not a text file (it contains NUL bytes)`,
    { file },
  );
}
