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
import path from 'node:path';
import { excerpt } from '../policy/excerpt.js';
import { EdocError } from '../errors.js';
import { buildDocument } from '../map/build-document.js';
import type { BuiltDocument } from '../map/build-document.js';
import type { CompanyInfo, RowView } from '../map/eval-context.js';
import { ColumnNumbers } from '../map/column-numbers.js';
import type { Mapping } from '../map/mapping-types.js';
import type { MasterTables } from '../map/master-tables.js';
import type { Problem } from '../validate/problem.js';
import type { SourceDocument } from './source-document.js';
import type { CsvDelimiter } from './csv-encoding.js';
import {
  checkRepeatedColumns,
  checkRequiredColumns,
  indexHeader,
  normaliseColumnName,
} from './csv-header.js';
import { NO_KEY, RowFramer, namedWidth } from './csv-framing.js';
import type { FramedRow } from './csv-framing.js';
import { locateHeader } from './csv-header-locate.js';
import { KeyPass } from './split-keys.js';
import { checkOpenQuote } from './csv-open-quote.js';
import { repeatedBlock, rowProblems, withoutKey } from './csv-row-problems.js';
import type { CsvReadOptions, CsvRecord } from './csv-records.js';
import { delimitedReader } from './record-reader.js';
import type { RecordReader } from './record-reader.js';
import type { DocumentKind } from '../kinds/index.js';
import { routeKind } from '../map/route-kind.js';
import type { RowMark } from './row-mark.js';

export interface CsvSourceContext extends CsvReadOptions {
  kind: DocumentKind;
  company: CompanyInfo;
  /** The master-data tables the mapping reads (`lookup()`). */
  master?: MasterTables;
  /** Fed with the bytes of the pass the documents come from. */
  hash?: Hash;
  /** Told which row is being framed or built (read/row-mark.ts). */
  mark?: RowMark;
}

export interface CsvSourceDocument extends SourceDocument {
  /** The key columns' values joined (`SETP990000101`), '' when the row had none. */
  key: string;
  /**
   * The key as the ledger compares it (which key alternative, then each column's value, unambiguous where
   * `key` is not: `1`+`23` and `12`+`3`); absent when the row had none.
   */
  keyId?: string;
}

export interface OpenedCsvSource {
  format: 'csv' | 'xlsx' | 'xls';
  /**
   * The title lines above the header (mapping `framing`) and the header record, as in the file, each with
   * its line break (header + each document's raw = valid CSV that reads with the same mapping).
   */
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
  /** Rows without a key of their own that continue this document (csv-framing.ts). */
  continuation?: number[];
  /** Problems that refuse the document whatever it maps to (an undecided skip test, a totals row). */
  undecided?: Problem[];
  /** Where the document's current block of consecutive rows starts in `rows` (another key's row ends a block). */
  blockStart?: number;
  /** The text of each row in the document's earlier blocks -> its row number (repeatedBlock). */
  earlier?: Map<string, number>;
}

function isBlank(cells: string[]): boolean {
  return cells.every((c) => c.trim() === '');
}

export async function openCsvSource(
  file: string,
  mapping: Mapping,
  ctx: CsvSourceContext,
  reader?: RecordReader,
): Promise<OpenedCsvSource> {
  const before = await stat(file);
  if (before.size === 0) throw new EdocError('EDOC_READ_EMPTY', `${file} is empty`, { file });
  const framing = mapping.framing;
  const framed =
    framing !== undefined && (framing.headerRow !== undefined || framing.findHeader !== undefined);
  const input = reader ?? (await delimitedReader(file, mapping));
  const { delimiter, encoding: recorded } = input;
  const readOptions: CsvReadOptions = { maxRecordBytes: ctx.maxRecordBytes, signal: ctx.signal };
  let headerRecord: CsvRecord | undefined;
  let preamble = '';
  if (framed) {
    ({ record: headerRecord, preamble } = await locateHeader(
      file,
      input.read,
      framing,
      readOptions,
    ));
  } else {
    for await (const record of input.read(readOptions)) {
      headerRecord = record;
      preamble = record.raw;
      break;
    }
  }
  if (headerRecord === undefined || isBlank(headerRecord.cells)) {
    throw new EdocError('EDOC_READ_EMPTY', `${file} has no header row`, {
      file,
      row: headerRecord?.row ?? 1,
    });
  }
  const headerRow = headerRecord.row;
  const headerCells = headerRecord.cells;
  const header = indexHeader(headerCells);
  checkRequiredColumns(file, mapping, ctx.kind, header, headerRecord.cells);
  checkRepeatedColumns(file, mapping, headerCells, headerRow);

  const columnIndex = new Map<string, number>();
  const indexOf = (column: string): number => {
    let i = columnIndex.get(column);
    if (i === undefined) {
      i = header.get(normaliseColumnName(column)) ?? -1;
      columnIndex.set(column, i);
    }
    return i;
  };
  // a delimited row longer than its header stands one column off (an unquoted delimiter in a text cell)
  const named = namedWidth(headerCells);
  const width = input.format === 'csv' ? named : undefined;
  const layout = { file, headerRow, width: named, delimiter };
  const mark = ctx.mark;
  // a cell handed to the mapping marks its row: a pattern stuck on it is stuck on that row, not the document's first
  const rowView = ({ record, cells }: FramedRow): RowView => ({
    row: record.row,
    get: (column) => {
      mark?.at(record.row);
      const i = indexOf(column);
      return i < 0 ? '' : (cells[i] ?? '');
    },
    // a spreadsheet's number cells (map/column-numbers.ts)
    ...(record.typed && { typed: (column: string) => record.typed!.has(indexOf(column)) }),
  });
  const headerName = (column: string): string => {
    const i = indexOf(column);
    return i < 0 ? column : headerCells[i].trim();
  };

  /** A cell in the other number or date convention (map/format-evidence.ts): the whole file is refused. */
  const formatMismatch = (p: Problem): EdocError => {
    const column = p.column === undefined ? undefined : headerName(p.column);
    const row = p.rows?.[0];
    const name = path.basename(file);
    return new EdocError(
      'EDOC_MAP_FORMAT_MISMATCH',
      `${name} row ${row}, column "${excerpt(column ?? '', 60)}": ${p.message}`,
      { file: name, ...(row !== undefined && { row }), column: column ?? '', value: p.value ?? '' },
    );
  };

  async function* documents(): AsyncGenerator<CsvSourceDocument> {
    // the key pass needs the cells only, not each record's original text
    const keyFramer = new RowFramer(mapping, headerRow, indexOf, undefined, width);
    const keys = new KeyPass(keyFramer, indexOf);
    for await (const record of input.read({ ...readOptions, raw: false })) {
      mark?.enter(record.row);
      if (width !== undefined) checkOpenQuote(file, record, delimiter, headerCells, headerRow);
      let framed;
      try {
        framed = keyFramer.frame(record, true);
      } finally {
        mark?.leave();
      }
      if (framed !== undefined) keys.note(framed, record.row);
    }
    const after = await stat(file);
    if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
      throw new EdocError('EDOC_READ_CHANGED', `${file} changed while it was read`, { file });
    }
    // each column's number cells, judged once the file is read (map/column-numbers.ts)
    const numbers = new ColumnNumbers(mapping.format);
    const open = new Map<string, OpenDocument>();
    let queue: OpenDocument[] = [];
    let head = 0;
    let nextIndex = 0;
    /** The document the previous framed row went to: a row of another key ends its block. */
    let previous: OpenDocument | undefined;
    const finish = (doc: OpenDocument): CsvSourceDocument => {
      mark?.enter(doc.rows[0]?.row ?? 0);
      try {
        return build(keys.marked(doc));
      } finally {
        mark?.leave();
      }
    };
    const build = (doc: OpenDocument): CsvSourceDocument => {
      const rows = doc.rows.map((r) => r.row);
      // a document missing rows that lost their key is refused whole, whatever else it holds
      let built: BuiltDocument;
      // one export, several kinds: the document is built and sent as the kind its column names
      const routed =
        mapping.route === undefined ? { kind: ctx.kind } : routeKind(mapping.route, doc.rows);
      const kind = 'kind' in routed ? routed.kind : ctx.kind;
      if ('problem' in routed) built = { problems: [routed.problem] };
      else if (doc.continuation === undefined)
        built = buildDocument(mapping, doc.rows, kind, ctx.company, ctx.master, numbers);
      else {
        // refused whole; what its own rows hold wrong is said too, so one correction round fixes both
        const cont = new Set(doc.continuation);
        const own = doc.rows.filter((r) => !cont.has(r.row));
        const ownProblems =
          own.length === 0
            ? []
            : buildDocument(mapping, own, kind, ctx.company, ctx.master, numbers).problems;
        built = {
          problems: [withoutKey(mapping, rows, doc.continuation, doc.display), ...ownProblems],
        };
      }
      if (doc.undecided !== undefined) {
        built.problems.unshift(...doc.undecided);
        delete built.request;
      }
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
      const mismatch = built.problems.find((p) => p.code === 'EDOC_MAP_FORMAT_MISMATCH');
      if (mismatch !== undefined) throw formatMismatch(mismatch);
      const out: CsvSourceDocument = {
        index: doc.index,
        source: { rows },
        key: doc.display,
        problems: built.problems,
        raw: doc.raws.join(''),
      };
      if (!doc.key.startsWith(NO_KEY)) out.keyId = doc.key;
      if (built.request !== undefined) out.request = built.request;
      if (built.request !== undefined && built.place !== undefined) out.place = built.place;
      if (mapping.route !== undefined && 'kind' in routed) out.kind = routed.kind;
      return out;
    };
    const framer = new RowFramer(
      mapping,
      headerRow,
      indexOf,
      (i) => headerCells[i] ?? `column ${i + 1}`,
      width,
    );
    framer.numbers = numbers;
    for await (const record of input.read(
      ctx.hash ? { ...readOptions, hash: ctx.hash } : readOptions,
    )) {
      mark?.enter(record.row);
      let framed;
      try {
        framed = framer.frame(record);
      } finally {
        mark?.leave();
      }
      if (framed === undefined) continue;
      const { key, display } = framed;
      let doc = open.get(key);
      if (doc === undefined) {
        doc = { index: nextIndex, key, display, rows: [], raws: [], complete: false };
        nextIndex += 1;
        open.set(key, doc);
        queue.push(doc);
      }
      if (previous !== doc && doc.rows.length > 0) {
        // a new block of an open document: its earlier rows become what a repeat is looked for in
        const earlier = (doc.earlier ??= new Map());
        for (let i = doc.blockStart ?? 0; i < doc.rows.length; i++)
          if (!earlier.has(doc.raws[i])) earlier.set(doc.raws[i], doc.rows[i].row);
        doc.blockStart = doc.rows.length;
      }
      previous = doc;
      const repeats = record.raw === '' ? undefined : doc.earlier?.get(record.raw);
      if (repeats !== undefined)
        (doc.undecided ??= []).push(repeatedBlock(record.row, repeats, doc.display));
      doc.rows.push(rowView(framed));
      doc.raws.push(record.raw);
      if (framed.continuation) (doc.continuation ??= []).push(record.row);
      const found = rowProblems(mapping, framed, layout);
      if (found.length > 0) (doc.undecided ??= []).push(...found);
      const last = keys.lastRow(key);
      if (last === undefined)
        throw new EdocError('EDOC_READ_CHANGED', `${file} changed while it was read`, {
          file,
          row: record.row,
        });
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
    // a column read like whole amounts grouped in the other convention: refused, the documents removed
    const grouped = numbers.verdict(headerName);
    if (grouped !== undefined) throw formatMismatch(grouped);
  }

  return {
    format: input.format,
    header: preamble,
    encoding: recorded,
    delimiter,
    documents: documents(),
  };
}
