/**
 * Where the header of a delimited export is (mapping `framing`): the first record (default), record N
 * (`headerRow`), or the first record holding every named column (`findHeader`, within the first 100
 * records). The records above it are title lines: they are no documents, and they are kept as the
 * preamble written back at the top of the retry file, so the retry file reads with the same mapping.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import iconv from 'iconv-lite';
import { EdocError } from '../errors.js';
import type { Framing } from '../map/mapping-types.js';
import { excerpt } from '../policy/excerpt.js';
import type { CsvDelimiter, CsvEncoding } from './csv-encoding.js';
import { sniffDelimiter } from './csv-encoding.js';
import { normaliseColumnName } from './csv-header.js';
import type { CsvReadOptions, CsvRecord } from './csv-records.js';

/** How far down `findHeader` looks: title blocks of real exports are a handful of lines. */
export const FIND_HEADER_ROWS = 100;
const HEAD_BYTES = 256 * 1024;

export interface LocatedHeader {
  record: CsvRecord;
  /** Title records and the header, each with its line break, as in the file. */
  preamble: string;
}

/** The first physical lines of the file (line breaks inside quotes kept inside their line). */
async function headLines(file: string, encoding: CsvEncoding): Promise<string[]> {
  const fh = await open(file, 'r');
  let text: string;
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    text = iconv.decode(buf.subarray(0, bytesRead), encoding);
  } finally {
    await fh.close();
  }
  const lines: string[] = [];
  let inQuotes = false;
  let start = 0;
  for (let i = 0; i < text.length && lines.length < FIND_HEADER_ROWS; i += 1) {
    const c = text[i];
    if (c === '"') inQuotes = !inQuotes;
    else if ((c === '\n' || c === '\r') && !inQuotes) {
      lines.push(text.slice(start, i));
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      start = i + 1;
    }
  }
  if (lines.length < FIND_HEADER_ROWS && start < text.length) lines.push(text.slice(start));
  return lines;
}

/** True when the cells hold every one of the names (matched like header names). */
export function holdsAll(cells: readonly string[], names: readonly string[]): boolean {
  const have = new Set(cells.map(normaliseColumnName));
  return names.every((n) => have.has(normaliseColumnName(n)));
}

/** `auto`: the delimiter of the header line (the title lines above it say nothing). */
export async function framedDelimiter(
  file: string,
  encoding: CsvEncoding,
  framing: Framing,
): Promise<CsvDelimiter> {
  const lines = await headLines(file, encoding);
  if (framing.findHeader !== undefined) {
    for (const line of lines) {
      for (const d of [';', ',', '\t'] as const) {
        if (
          holdsAll(
            line.split(d).map((c) => c.replace(/^"|"$/g, '')),
            framing.findHeader,
          )
        )
          return d;
      }
    }
    return sniffDelimiter(lines[0] ?? '');
  }
  return sniffDelimiter(lines[(framing.headerRow ?? 1) - 1] ?? lines[0] ?? '');
}

/** `records` streams the file's records from the start (a delimited file's, or a spreadsheet's rows). */
export async function locateHeader(
  file: string,
  records: (options: CsvReadOptions) => AsyncGenerator<CsvRecord>,
  framing: Framing,
  readOptions: CsvReadOptions,
): Promise<LocatedHeader> {
  const raws: string[] = [];
  const target = framing.headerRow;
  for await (const record of records(readOptions)) {
    raws.push(record.raw);
    const found =
      target !== undefined
        ? record.row === target
        : holdsAll(record.cells, framing.findHeader ?? []);
    if (found) return { record, preamble: raws.join('') };
    if (target === undefined && record.row >= FIND_HEADER_ROWS) break;
  }
  const name = path.basename(file);
  const message =
    target !== undefined
      ? `${name} has fewer than ${target} rows, so the header the mapping expects on row ${target} (framing.headerRow) is not there`
      : `No row among the first ${FIND_HEADER_ROWS} of ${name} holds every column of framing.findHeader (${excerpt((framing.findHeader ?? []).map((c) => `"${c}"`).join(', '), 200)})`;
  throw new EdocError('EDOC_MAP_HEADER_NOT_FOUND', message, {
    file,
    ...(target === undefined ? {} : { row: target }),
  });
}
