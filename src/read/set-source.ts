/**
 * An export in two files (map/parts.ts): the header file and the lines file of one set, read as
 * one record stream for csv-source.ts, so keys, grouping, mapping and guards work as for one file.
 *
 * - The header file is read first, whole, into a table by its key column (one entry per document:
 *   the header file is the small one). A blank or repeated key is refused.
 * - The lines file is read once to check the join before anything is handed out: a line whose key
 *   has no header row, or a header row no line joins, refuses the whole set (EDOC_READ_SET_JOIN,
 *   naming file, row and column): parts that do not join are not one export, and nothing of them is
 *   issued.
 * - Then each line row becomes one record: the cells of its header row followed by its own. The
 *   joined header names the header file's columns, then the lines file's; a name both files carry
 *   is read as `header.NAME` and `lines.NAME`. A record's row number is the lines file's row.
 * - Each record's text (`raw`, for the retry file) is the joined row as a CSV line, under the joined
 *   header: the retry file of a set is one CSV holding every value of its failed documents.
 *
 * The set's content hash is `setDigest` of the parts' SHA-256 (header first, then lines), fed to
 * `hash` at the end of the pass the documents come from.
 */
import { createHash, type Hash } from 'node:crypto';
import path from 'node:path';
import { EdocError } from '../errors.js';
import type { Mapping } from '../map/mapping-types.js';
import type { PartName } from '../map/parts.js';
import { excerpt } from '../policy/excerpt.js';
import { checkRepeatedColumns, normaliseColumnName } from './csv-header.js';
import type { CsvReadOptions, CsvRecord } from './csv-records.js';
import { openCsvSource, type CsvSourceContext, type OpenedCsvSource } from './csv-source.js';
import { delimitedReader, type RecordReader } from './record-reader.js';
import { namedWidth, overflowOf } from './csv-framing.js';
import { extraCellsText } from './csv-row-problems.js';
import { csvLine } from './sheet-values.js';

export interface SetFiles {
  header: string;
  lines: string;
}

/** What a set's content hash is taken over: each part's SHA-256 (hex), header first. */
export function setDigestText(parts: { header: string; lines: string }): string {
  return `header ${parts.header}\nlines ${parts.lines}\n`;
}

/** The content hash of a set: the SHA-256 (hex) of `setDigestText`. */
export function setDigest(parts: { header: string; lines: string }): string {
  return createHash('sha256').update(setDigestText(parts)).digest('hex');
}

interface HeaderEntry {
  row: number;
  cells: string[];
  joined: boolean;
}

function isBlank(cells: string[]): boolean {
  return cells.every((c) => c.trim() === '');
}

function joinError(file: string, row: number, column: string, message: string): EdocError {
  return new EdocError('EDOC_READ_SET_JOIN', `${path.basename(file)} row ${row}: ${message}`, {
    file: path.basename(file),
    row,
    column,
  });
}

/** A row of either part with more cells than its header, not blank: the set is refused (see csv-row-problems.ts). */
function extraCellsCheck(
  file: string,
  delimiter: string,
  record: CsvRecord,
  headerRow: number,
  width: number,
): void {
  const cells = overflowOf(record.cells, width);
  if (cells === undefined) return;
  const layout = { file, headerRow, width, delimiter };
  throw new EdocError(
    'EDOC_MAP_EXTRA_CELLS',
    extraCellsText(layout, { row: record.row, cells }, 'Nothing of the set is sent'),
    { file: path.basename(file), row: record.row },
  );
}

function keyIndex(file: string, names: string[], part: PartName, key: string): number {
  const same = (n: string): boolean => normaliseColumnName(n) === normaliseColumnName(key);
  const i = names.findIndex(same);
  const again = i < 0 ? -1 : names.findIndex((n, at) => at > i && same(n));
  // two join columns: the lines would be joined to documents by whichever came first
  if (again >= 0)
    throw new EdocError(
      'EDOC_MAP_REPEATED_COLUMN',
      `Column "${excerpt(key, 60)}" (parts.${part}.key) appears twice in the header of ${path.basename(file)} (row 1, columns ${i + 1} and ${again + 1}): which one joins the files cannot be told, so nothing of the set is sent; rename one of them in the export`,
      { file: path.basename(file), column: key, row: 1 },
    );
  if (i < 0)
    throw new EdocError(
      'EDOC_MAP_MISSING_COLUMN',
      `${path.basename(file)}: the ${part} file has no column "${excerpt(key, 60)}" (parts.${part}.key), found ${excerpt(names.join(', '), 200)}`,
      { file: path.basename(file), column: key },
    );
  return i;
}

export async function openSetSource(
  files: SetFiles,
  mapping: Mapping,
  ctx: CsvSourceContext,
): Promise<OpenedCsvSource> {
  const parts = mapping.parts;
  if (parts === undefined) throw new Error('openSetSource: the mapping reads no parts');
  const base: CsvReadOptions = { maxRecordBytes: ctx.maxRecordBytes, signal: ctx.signal };
  const headerInput = await delimitedReader(files.header, mapping);
  const linesInput = await delimitedReader(files.lines, mapping);

  // the header file, whole: names, then the documents by key
  const headerHash = createHash('sha256');
  let headerNames: string[] | undefined;
  let headerRow = 1;
  let headerKey = -1;
  const byKey = new Map<string, HeaderEntry>();
  for await (const record of headerInput.read({ ...base, raw: false, hash: headerHash })) {
    if (headerNames === undefined) {
      headerNames = record.cells;
      headerRow = record.row;
      headerKey = keyIndex(files.header, headerNames, 'header', parts.header.key);
      continue;
    }
    if (record.row <= parts.header.headerRows || isBlank(record.cells)) continue;
    extraCellsCheck(
      files.header,
      headerInput.delimiter,
      record,
      headerRow,
      namedWidth(headerNames),
    );
    const key = (record.cells[headerKey] ?? '').trim();
    if (key === '')
      throw joinError(
        files.header,
        record.row,
        parts.header.key,
        `the key column "${parts.header.key}" is blank`,
      );
    const earlier = byKey.get(key);
    if (earlier !== undefined)
      throw joinError(
        files.header,
        record.row,
        parts.header.key,
        `${parts.header.key} ${excerpt(key, 40)} is the key of row ${earlier.row} already: each header row needs its own key`,
      );
    byKey.set(key, { row: record.row, cells: record.cells, joined: false });
  }
  if (headerNames === undefined)
    throw new EdocError('EDOC_READ_EMPTY', `${path.basename(files.header)} has no header row`, {
      file: path.basename(files.header),
    });
  const headerSha = headerHash.digest('hex');

  // the join, checked before anything is handed out
  let lineNames: string[] | undefined;
  let linesRow = 1;
  let lineKey = -1;
  for await (const record of linesInput.read({ ...base, raw: false })) {
    if (lineNames === undefined) {
      lineNames = record.cells;
      linesRow = record.row;
      lineKey = keyIndex(files.lines, lineNames, 'lines', parts.lines.key);
      continue;
    }
    if (record.row <= parts.lines.headerRows || isBlank(record.cells)) continue;
    extraCellsCheck(files.lines, linesInput.delimiter, record, linesRow, namedWidth(lineNames));
    const key = (record.cells[lineKey] ?? '').trim();
    const entry = byKey.get(key);
    if (entry === undefined)
      throw joinError(
        files.lines,
        record.row,
        parts.lines.key,
        key === ''
          ? `the key column "${parts.lines.key}" is blank`
          : `${parts.lines.key} ${excerpt(key, 40)} has no header row in ${path.basename(files.header)} (column ${parts.header.key})`,
      );
    entry.joined = true;
  }
  if (lineNames === undefined)
    throw new EdocError('EDOC_READ_EMPTY', `${path.basename(files.lines)} has no header row`, {
      file: path.basename(files.lines),
    });
  for (const [key, entry] of byKey)
    if (!entry.joined)
      throw joinError(
        files.header,
        entry.row,
        parts.header.key,
        `${parts.header.key} ${excerpt(key, 40)} has no lines in ${path.basename(files.lines)} (column ${parts.lines.key})`,
      );

  const inLines = new Set(lineNames.map(normaliseColumnName));
  const inHeader = new Set(headerNames.map(normaliseColumnName));
  const joinedNames = [
    ...headerNames.map((n) => (inLines.has(normaliseColumnName(n)) ? `header.${n.trim()}` : n)),
    ...lineNames.map((n) => (inHeader.has(normaliseColumnName(n)) ? `lines.${n.trim()}` : n)),
  ];
  const width = headerNames.length;
  // a column named twice within one part is named by its own file and its place there (the joined
  // header, which csv-source.ts checks too, would count the lines file's columns after the header file's)
  checkRepeatedColumns(files.header, mapping, joinedNames.slice(0, width), headerRow);
  checkRepeatedColumns(files.lines, mapping, joinedNames.slice(width), linesRow);
  const delimiter = linesInput.delimiter;
  const names = lineNames;
  async function* read(options: CsvReadOptions): AsyncGenerator<CsvRecord> {
    const withRaw = options.raw !== false;
    const linesHash = options.hash === undefined ? undefined : createHash('sha256');
    const { hash: _outer, ...rest } = options;
    let first = true;
    for await (const record of linesInput.read(linesHash ? { ...rest, hash: linesHash } : rest)) {
      if (first) {
        first = false;
        yield { row: record.row, cells: joinedNames, raw: csvLine(joinedNames, delimiter) };
        continue;
      }
      if (record.row <= parts!.lines.headerRows || isBlank(record.cells)) continue;
      const entry = byKey.get((record.cells[lineKey] ?? '').trim());
      // checked above; only a lines file that changed since reads otherwise
      if (entry === undefined)
        throw new EdocError('EDOC_READ_CHANGED', `${files.lines} changed while it was read`, {
          file: files.lines,
          row: record.row,
        });
      const head = entry.cells.slice(0, width);
      while (head.length < width) head.push('');
      const own = record.cells.slice(0, names.length);
      const cells = [...head, ...own];
      yield { row: record.row, cells, raw: withRaw ? csvLine(cells, delimiter) : '' };
    }
    if (options.hash !== undefined && linesHash !== undefined)
      (options.hash as Hash).update(
        setDigestText({ header: headerSha, lines: linesHash.digest('hex') }),
      );
  }
  const reader: RecordReader = {
    format: 'csv',
    encoding: linesInput.encoding,
    delimiter: linesInput.delimiter,
    read,
  };
  return openCsvSource(files.lines, mapping, ctx, reader);
}
