/**
 * CSV / TXT exports -> SourceDocuments, in bounded memory. Rows of one document
 * may stand anywhere in the file, so a document can only be emitted after its
 * last row. Pass 1 streams the file and records each key's last row (compactly,
 * see csv-last-rows.ts); pass 2 streams it again, collects the rows of open
 * documents and emits each document when its last row has passed — in order of
 * first appearance, holding back only documents already complete behind an
 * earlier one that is still open. With consecutive rows at most one document is
 * held at a time, whatever the size of the file.
 */
import type { Hash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { EdocError } from '../errors.js';
import { buildDocument } from '../map/build-document.js';
import type { CompanyInfo, RowView } from '../map/evaluate-value.js';
import type { Mapping } from '../map/mapping-types.js';
import type { SourceDocument } from './source-document.js';
import { detectEncoding, firstLine, sniffDelimiter } from './csv-encoding.js';
import type { CsvDelimiter } from './csv-encoding.js';
import { checkRequiredColumns, indexHeader, normaliseColumnName } from './csv-header.js';
import { LastRowTable } from './csv-last-rows.js';
import { readCsvRecords as readDelimited } from './csv-records.js';
import type { CsvReadOptions, CsvRecord } from './csv-records.js';
import type { DocumentKind } from '../kinds/index.js';

export interface CsvSourceContext extends CsvReadOptions {
  kind: DocumentKind;
  company: CompanyInfo;
  /** Fed with the bytes of the pass the documents come from. */
  hash?: Hash;
}

export interface CsvSourceDocument extends SourceDocument {
  /** The key columns' values joined (`SETP990000101`), '' when the row had none. */
  key: string;
}

/**
 * Where the records come from when they are not a delimited file's (a spreadsheet's rows:
 * read/sheet-source.ts): each call streams them from the start; `row` is the number the
 * spreadsheet shows, `raw` the row as a CSV line (the retry file of a spreadsheet is CSV).
 */
export interface RecordReader {
  format: 'csv' | 'xlsx' | 'xls';
  read(options: CsvReadOptions): AsyncGenerator<CsvRecord>;
  encoding: string;
  delimiter: CsvDelimiter;
}

export interface OpenedCsvSource {
  format: 'csv' | 'xlsx' | 'xls';
  /** The header record as in the file, with its line break (header + each document's raw = valid CSV). */
  header: string;
  /** `windows-1252`, `latin1`, `utf-8`, or `utf-8-bom` when the file starts with a UTF-8 BOM (written back in the retry file). */
  encoding: string;
  delimiter: CsvDelimiter;
  documents: AsyncIterable<CsvSourceDocument>;
}

interface OpenDocument {
  index: number;
  key: string;
  display: string;
  rows: RowView[];
  raws: string[];
  complete: boolean;
}

const NO_KEY = '\u0000';

function isBlank(cells: string[]): boolean {
  return cells.every((c) => c.trim() === '');
}

export async function openCsvSource(file: string, mapping: Mapping, ctx: CsvSourceContext, reader?: RecordReader): Promise<OpenedCsvSource> {
  const before = await stat(file);
  if (before.size === 0) throw new EdocError('EDOC_READ_EMPTY', `${file} is empty`, { file });
  const input = reader ?? await delimitedReader(file, mapping);
  const { delimiter, encoding: recorded } = input;

  let headerRecord: CsvRecord | undefined;
  const readOptions: CsvReadOptions = { maxRecordBytes: ctx.maxRecordBytes, signal: ctx.signal };
  for await (const record of input.read(readOptions)) {
    headerRecord = record;
    break;
  }
  if (headerRecord === undefined || isBlank(headerRecord.cells)) {
    throw new EdocError('EDOC_READ_EMPTY', `${file} has no header row`, { file, row: headerRecord?.row ?? 1 });
  }
  const headerRow = headerRecord.row;
  const header = indexHeader(headerRecord.cells);
  checkRequiredColumns(file, mapping, ctx.kind, header, headerRecord.cells);

  const columnIndex = new Map<string, number>();
  const indexOf = (column: string): number => {
    let i = columnIndex.get(column);
    if (i === undefined) {
      i = header.get(normaliseColumnName(column)) ?? -1;
      columnIndex.set(column, i);
    }
    return i;
  };
  const keyAlternatives = mapping.key.map((alt) => alt.map(indexOf)).filter((alt) => alt.every((i) => i >= 0));
  const keyOf = (record: CsvRecord): { key: string; display: string } => {
    for (const [a, alt] of keyAlternatives.entries()) {
      const values = alt.map((i) => (record.cells[i] ?? '').trim());
      if (values.every((v) => v !== '')) return { key: `${a}\u001f${values.join('\u001f')}`, display: values.join('') };
    }
    return { key: `${NO_KEY}${record.row}`, display: '' };
  };
  const rowView = (record: CsvRecord): RowView => ({
    row: record.row,
    get: (column) => {
      const i = indexOf(column);
      return i < 0 ? '' : (record.cells[i] ?? '');
    },
  });

  async function* documents(): AsyncGenerator<CsvSourceDocument> {
    const lastRows = new LastRowTable();
    // the key pass needs the cells only, not each record's original text
    for await (const record of input.read({ ...readOptions, raw: false })) {
      if (record.row <= headerRow || isBlank(record.cells)) continue;
      lastRows.set(keyOf(record).key, record.row);
    }
    const after = await stat(file);
    if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
      throw new EdocError('EDOC_READ_CHANGED', `${file} changed while it was read`, { file });
    }
    const open = new Map<string, OpenDocument>();
    let queue: OpenDocument[] = [];
    let head = 0;
    let nextIndex = 0;
    const finish = (doc: OpenDocument): CsvSourceDocument => {
      const built = buildDocument(mapping, doc.rows, ctx.kind, ctx.company);
      const rows = doc.rows.map((r) => r.row);
      if (doc.key.startsWith(NO_KEY)) {
        built.problems.unshift({
          code: 'EDOC_MAP_REQUIRED',
          path: '',
          column: mapping.key.map((alt) => alt.join('+')).join(' or '),
          value: '',
          rows,
          message: `Row ${rows[0]} has no document key (${mapping.key.map((alt) => alt.join(' + ')).join(', or ')})`,
        });
        delete built.request;
      }
      const out: CsvSourceDocument = { index: doc.index, source: { rows }, key: doc.display, problems: built.problems, raw: doc.raws.join('') };
      if (built.request !== undefined) out.request = built.request;
      return out;
    };
    for await (const record of input.read(ctx.hash ? { ...readOptions, hash: ctx.hash } : readOptions)) {
      if (record.row <= headerRow || isBlank(record.cells)) continue;
      const { key, display } = keyOf(record);
      let doc = open.get(key);
      if (doc === undefined) {
        doc = { index: nextIndex, key, display, rows: [], raws: [], complete: false };
        nextIndex += 1;
        open.set(key, doc);
        queue.push(doc);
      }
      doc.rows.push(rowView(record));
      doc.raws.push(record.raw);
      const last = lastRows.get(key);
      if (last === undefined) throw new EdocError('EDOC_READ_CHANGED', `${file} changed while it was read`, { file, row: record.row });
      if (record.row >= last) {
        doc.complete = true;
        open.delete(key);
      }
      while (head < queue.length && queue[head].complete) {
        const done = queue[head];
        head += 1;
        yield finish(done);
        done.rows = [];
        done.raws = [];
      }
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head);
        head = 0;
      }
    }
    // Only a hash collision or a file that changed between passes leaves documents open here.
    for (; head < queue.length; head += 1) yield finish(queue[head]);
  }

  return { format: input.format, header: headerRecord.raw, encoding: recorded, delimiter, documents: documents() };
}

/** The records of a delimited file, its encoding detected (or as configured) and its delimiter sniffed. */
async function delimitedReader(file: string, mapping: Mapping): Promise<RecordReader> {
  const { decoding, recorded } = await detectEncoding(file, mapping.format.encoding);
  const delimiter = mapping.format.delimiter === 'auto' ? sniffDelimiter(await firstLine(file, decoding)) : mapping.format.delimiter;
  return { format: 'csv', encoding: recorded, delimiter, read: (options) => readDelimited(file, decoding, delimiter, options) };
}
