/**
 * Streams the records of a delimited file with csv-parse: decoded through
 * iconv-lite, each record with its number (header = 1; a quoted field with
 * line breaks makes one record span several physical lines, it is still one
 * row) and its original text including its line break. Memory: the stream
 * buffers only.
 */
import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import { EdocError } from '../errors.js';
import type { CsvDelimiter, CsvEncoding } from './csv-encoding.js';

export interface CsvRecord {
  /** 1-based record number; the header is 1. */
  row: number;
  cells: string[];
  /** Original text of the record with its line break (blank lines before it are not included). */
  raw: string;
}

/**
 * csv-parse reports `info.bytes` in UTF-8 bytes of what it was given; this
 * keeps a copy of the not-yet-claimed bytes so each record's text can be cut
 * out exactly (csv-parse's own `raw` option misplaces line breaks).
 */
class RawTap extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private base = 0;

  constructor() {
    super({ readableObjectMode: false });
  }

  override _transform(chunk: string | Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.pending = this.pending.length === 0 ? buf : Buffer.concat([this.pending, buf]);
    done(null, buf);
  }

  /** Text from the last claimed byte up to `end`, released afterwards. */
  claim(end: number): string {
    const text = this.pending.subarray(0, end - this.base).toString('utf8');
    this.pending = this.pending.subarray(end - this.base);
    this.base = end;
    return text;
  }
}

export async function* readCsvRecords(file: string, encoding: CsvEncoding, delimiter: CsvDelimiter,
  hash?: Hash): AsyncGenerator<CsvRecord> {
  const tap = new RawTap();
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
  if (hash !== undefined) input.on('data', (chunk) => hash.update(chunk));
  decoder.on('error', (err) => parser.destroy(err));
  input.pipe(decoder).pipe(tap).pipe(parser);
  let row = 0;
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      row += 1;
      let raw = tap.claim(item.info.bytes).replace(/^[\r\n]+/, '');
      if (!/[\r\n]$/.test(raw)) raw += '\r\n';
      yield { row, cells: item.record, raw };
    }
  } catch (err) {
    if (err instanceof EdocError) throw err;
    const e = err as { code?: string; message?: string; lines?: number };
    throw new EdocError('EDOC_MAP_CSV_SYNTAX', `Record ${row + 1} cannot be read as delimited text: ${e.message ?? String(err)}`, { file, row: row + 1, csvCode: e.code }, { cause: err });
  } finally {
    input.destroy();
    decoder.destroy();
    parser.destroy();
  }
}
