/**
 * Spreadsheets (.xlsx, .xlsm, .xls) read like CSV: the rows of one sheet (the
 * first worksheet, or `format.sheet` of the mapping) become the record stream
 * of csv-source.ts, so header, keys, grouping and mapping work as for a CSV
 * file. Cell values: read/sheet-values.ts. Each row's `raw` is the row as a CSV
 * line, so the retry file of a spreadsheet is a CSV file with the same columns.
 *
 * The container decides, not the name: a zip package is read as .xlsx, a
 * compound file as .xls (or refused as password-protected when it carries an
 * encrypted package), and a text file named .xls — what several ERPs' "export to
 * Excel" writes — is read as delimited text; an HTML page named .xls is refused.
 */
import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import type { Mapping } from '../map/mapping-types.js';
import { openToRead } from './file-snapshot.js';
import type { CsvReadOptions, CsvRecord } from './csv-records.js';
import { DEFAULT_MAX_RECORD_BYTES } from './csv-records.js';
import type { OpenedCsvSource, CsvSourceContext } from './csv-source.js';
import type { RecordReader } from './record-reader.js';
import { openCsvSource } from './csv-source.js';
import { tableRules } from './sheet-merges.js';
import { csvLine } from './sheet-values.js';
import { readXlsSheet } from './xls-rows.js';
import { openXlsxSheet } from './xlsx-rows.js';
import type { SheetRow } from './xlsx-rows.js';
import { SheetFault } from './zip-parts.js';

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const CFB = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

async function head(file: string): Promise<Buffer> {
  const handle = await openToRead(file, 'disappeared before it was read');
  try {
    const buffer = Buffer.alloc(512);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function fileError(file: string, fault: SheetFault): EdocError {
  const name = path.basename(file);
  switch (fault.code) {
    case 'encrypted':
      return new EdocError(
        'EDOC_READ_SHEET_ENCRYPTED',
        `${name} cannot be read: ${fault.message}; export it again without a password`,
        { file },
      );
    case 'sheet':
      return new EdocError('EDOC_READ_SHEET_MISSING', `${name} cannot be read: ${fault.message}`, {
        file,
      });
    case 'unsupported':
      return new EdocError('EDOC_READ_UNSUPPORTED', `${name} cannot be read: ${fault.message}`, {
        file,
      });
    case 'too-large':
      return new EdocError(
        'EDOC_READ_RECORD_TOO_LARGE',
        `${name}: ${fault.message} (read.maxRecordBytes); the file is not read`,
        { file },
      );
    default:
      return new EdocError(
        'EDOC_READ_SHEET_CORRUPT',
        `${name} cannot be read as a spreadsheet: ${fault.message}`,
        { file },
      );
  }
}

/** Rows -> CSV records, checking the stop signal and the record cap, feeding `hash` with the file's bytes first. */
async function* toRecords(
  rows: AsyncIterable<SheetRow> | Iterable<SheetRow>,
  file: string,
  delimiter: string,
  options: CsvReadOptions,
  hashBytes: (hash: Hash) => Promise<void>,
): AsyncGenerator<CsvRecord> {
  if (options.hash !== undefined) await hashBytes(options.hash);
  const max = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const withRaw = options.raw !== false;
  for await (const r of rows) {
    options.signal?.throwIfAborted();
    const raw = csvLine(r.cells, delimiter);
    if (Buffer.byteLength(raw) > max) {
      throw new EdocError(
        'EDOC_READ_RECORD_TOO_LARGE',
        `${file}: row ${r.row} is longer than ${max.toLocaleString('en-US')} bytes (read.maxRecordBytes); the file is not read`,
        { file, row: r.row, maxBytes: max },
      );
    }
    const record: CsvRecord = { row: r.row, cells: r.cells, raw: withRaw ? raw : '' };
    if (r.typed !== undefined) record.typed = r.typed;
    yield record;
  }
}

async function hashFile(file: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }))
    hash.update(chunk as Buffer);
}

/** The retry CSV's delimiter: the mapping's, or `;` beside a decimal comma and `,` otherwise. */
function retryDelimiter(mapping: Mapping): ',' | ';' | '\t' {
  if (mapping.format.delimiter !== 'auto') return mapping.format.delimiter;
  return mapping.format.decimal === ',' ? ';' : ',';
}

export async function openSheetSource(
  file: string,
  mapping: Mapping,
  ctx: CsvSourceContext,
): Promise<OpenedCsvSource> {
  const start = await head(file);
  const format = { decimal: mapping.format.decimal, date: mapping.format.date };
  const delimiter = retryDelimiter(mapping);
  const sheet = mapping.format.sheet;
  const rules = tableRules(mapping);
  let reader: RecordReader;
  try {
    if (start.subarray(0, 4).equals(ZIP)) {
      const xlsx = await openXlsxSheet(file, sheet, format, rules);
      reader = {
        format: 'xlsx',
        encoding: 'utf-8',
        delimiter,
        read: (options) =>
          toRecords(
            xlsx.rows(options.signal, options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES),
            file,
            delimiter,
            options,
            (h) => hashFile(file, h),
          ),
      };
    } else if (start.subarray(0, 8).equals(CFB)) {
      const bytes = await readFile(file);
      const xls = readXlsSheet(bytes, sheet, format, rules);
      reader = {
        format: 'xls',
        encoding: 'utf-8',
        delimiter,
        read: (options) =>
          toRecords(xls.rows, file, delimiter, options, (h) =>
            Promise.resolve(void h.update(bytes)),
          ),
      };
    } else if (/^\s*</.test(start.toString('latin1'))) {
      throw new SheetFault(
        'unsupported',
        'it is a web page (HTML) saved under a spreadsheet name; export it as .xlsx or CSV',
      );
    } else if (start.includes(0)) {
      throw new SheetFault(
        'corrupt',
        'it is neither an .xlsx package nor an Excel 97-2003 workbook',
      );
    } else {
      // text under an .xls name: an ERP's tab- or semicolon-separated "Excel" export
      return await openCsvSource(file, mapping, ctx);
    }
  } catch (err) {
    if (err instanceof SheetFault) throw fileError(file, err);
    throw err;
  }
  try {
    const opened = await openCsvSource(file, mapping, ctx, reader);
    return { ...opened, documents: sheetFaults(file, opened.documents) };
  } catch (err) {
    if (err instanceof SheetFault) throw fileError(file, err);
    throw err;
  }
}

/** Wraps the documents so a fault met while streaming (a part that does not inflate) is a file-level error too. */
function sheetFaults<T>(file: string, items: AsyncIterable<T>): AsyncGenerator<T> {
  return (async function* wrapped() {
    try {
      yield* items;
    } catch (err) {
      if (err instanceof SheetFault) throw fileError(file, err);
      throw err;
    }
  })();
}
