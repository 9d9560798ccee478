/**
 * Streams the records of a delimited file with csv-parse: decoded through
 * iconv-lite, each record with its number (header = 1; a quoted field with
 * line breaks makes one record span several physical lines, it is still one
 * row) and its original text including its line break. Memory: the stream
 * buffers, plus the record being read — up to `maxRecordBytes`, past which the
 * file is refused (EDOC_READ_RECORD_TOO_LARGE) without quoting any of it. The
 * bytes of a record are kept as a list of chunks and joined once, when the
 * record ends, so a long record costs time in proportion to its length.
 */
import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import { EdocError } from '../errors.js';
import { excerpt } from '../policy/excerpt.js';
import type { CsvDelimiter, CsvEncoding } from './csv-encoding.js';

export interface CsvRecord {
  /** 1-based record number; the header is 1. */
  row: number;
  cells: string[];
  /** Original text of the record with its line break (blank lines before it are not included). */
  raw: string;
  /** A spreadsheet's cells typed as numbers, by index: no text of the export (map/column-numbers.ts). */
  typed?: ReadonlySet<number>;
}

export interface CsvReadOptions {
  /** Longest record accepted, in bytes (UTF-8 of the decoded text). @defaultValue 32 MiB */
  maxRecordBytes?: number;
  /** Stops the read (daemon shutdown): the generator ends with an AbortError. */
  signal?: AbortSignal;
  /** Fed with the raw bytes as read: the intake checks they are the bytes it hashed (OpenSourceOptions.hash). */
  hash?: Hash;
  /**
   * Cut out each record's original text (`CsvRecord.raw`); a pass that needs only the cells (the
   * key pass of csv-source.ts) skips it and gets `raw: ''`. @defaultValue true
   */
  raw?: boolean;
}

export const DEFAULT_MAX_RECORD_BYTES = 32 * 1024 * 1024;

/**
 * csv-parse reports `info.bytes` in UTF-8 bytes of what it was given; this
 * keeps a copy of the not-yet-claimed bytes so each record's text can be cut
 * out exactly (csv-parse's own `raw` option misplaces line breaks). The copy is
 * a list of chunks, never concatenated while it grows (that made reading one
 * long record quadratic: 40 MB took 18 s). `tooLarge` is called once when the
 * unclaimed bytes pass the cap.
 */
class RawTap extends Transform {
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  private base = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly tooLarge: () => Error,
  ) {
    super({ readableObjectMode: false });
  }

  override _transform(chunk: string | Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.chunks.push(buf);
    this.pendingBytes += buf.length;
    // a chunk may hold the end of the record and more: allow one chunk beyond the cap before refusing
    if (this.pendingBytes - buf.length > this.maxBytes) {
      done(this.tooLarge());
      return;
    }
    done(null, buf);
  }

  /** Bytes not yet claimed: the record being read (and what follows it in the last chunk). */
  get pending(): number {
    return this.pendingBytes;
  }

  /** Text from the last claimed byte up to `end`, released afterwards. */
  claim(end: number): string {
    const parts = this.release(end);
    return (parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString('utf8');
  }

  /** Releases the bytes up to `end`, answering them as a list of pieces. */
  release(end: number): Buffer[] {
    let need = end - this.base;
    const parts: Buffer[] = [];
    while (need > 0 && this.chunks.length > 0) {
      const first = this.chunks[0];
      if (first.length <= need) {
        parts.push(first);
        this.chunks.shift();
        need -= first.length;
        this.pendingBytes -= first.length;
      } else {
        parts.push(first.subarray(0, need));
        this.chunks[0] = first.subarray(need);
        this.pendingBytes -= need;
        need = 0;
      }
    }
    this.base = end;
    return parts;
  }
}

export async function* readCsvRecords(
  file: string,
  encoding: CsvEncoding,
  delimiter: CsvDelimiter,
  options: CsvReadOptions = {},
): AsyncGenerator<CsvRecord> {
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  // the record being read is the one after those the parser has emitted (it may be ahead of the consumer)
  const tap = new RawTap(maxRecordBytes, () =>
    recordTooLarge(file, parser.info.records + 1, maxRecordBytes),
  );
  const parser = parse({
    delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    info: true,
    relax_column_count: true,
    skip_empty_lines: false,
    relax_quotes: true,
  });
  const input = createReadStream(file, { highWaterMark: 64 * 1024 });
  const decoder = iconv.decodeStream(encoding) as unknown as Transform;
  input.on('error', (err) => parser.destroy(err));
  // the raw bytes, as read: the intake checks they are the bytes it hashed (see OpenSourceOptions.hash)
  const hash = options.hash;
  if (hash !== undefined) input.on('data', (chunk) => hash.update(chunk));
  decoder.on('error', (err) => parser.destroy(err));
  tap.on('error', (err) => parser.destroy(err));
  const onAbort = (): void => {
    parser.destroy(abortError(options.signal));
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  input.pipe(decoder).pipe(tap).pipe(parser);
  let row = 0;
  const withRaw = options.raw !== false;
  try {
    options.signal?.throwIfAborted();
    for await (const item of parser as AsyncIterable<{
      record: string[];
      info: { bytes: number };
    }>) {
      row += 1;
      if (!withRaw) {
        tap.release(item.info.bytes);
        yield { row, cells: item.record, raw: '' };
        continue;
      }
      let raw = tap.claim(item.info.bytes).replace(/^[\r\n]+/, '');
      if (!/[\r\n]$/.test(raw)) raw += '\r\n';
      yield { row, cells: item.record, raw };
    }
  } catch (err) {
    if (err instanceof EdocError || isAbort(err)) throw err;
    const e = err as { code?: string; message?: string; lines?: number };
    throw new EdocError(
      'EDOC_MAP_CSV_SYNTAX',
      `Record ${row + 1} cannot be read as delimited text: ${excerpt(e.message ?? String(err), 200)}`,
      { file, row: row + 1, csvCode: e.code },
      { cause: err },
    );
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    input.destroy();
    decoder.destroy();
    parser.destroy();
  }
}

function recordTooLarge(file: string, row: number, max: number): EdocError {
  return new EdocError(
    'EDOC_READ_RECORD_TOO_LARGE',
    `${file}: record ${row} is longer than ${max.toLocaleString('en-US')} bytes (read.maxRecordBytes); the file is not read`,
    { file, row, maxBytes: max },
  );
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('The read was stopped', 'AbortError');
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}
