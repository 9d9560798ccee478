/**
 * Where the rows of a tabular export come from: a delimited file's records (its encoding detected and
 * checked, its delimiter sniffed), or a spreadsheet's rows (read/sheet-source.ts) and an export in two
 * files (read/set-source.ts) presented as records alike.
 */
import type { Mapping } from '../map/mapping-types.js';
import { firstLine, sniffDelimiter } from './csv-encoding.js';
import type { CsvDelimiter } from './csv-encoding.js';
import { framedDelimiter } from './csv-header-locate.js';
import { oneEncoding } from './csv-one-encoding.js';
import { readCsvRecords as readDelimited } from './csv-records.js';
import type { CsvReadOptions, CsvRecord } from './csv-records.js';

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

/** The records of a delimited file, its encoding detected (or as configured) and its delimiter sniffed. */
export async function delimitedReader(file: string, mapping: Mapping): Promise<RecordReader> {
  const { decoding, recorded } = await oneEncoding(file, mapping.format.encoding);
  const framing = mapping.framing;
  const delimiter =
    mapping.format.delimiter !== 'auto'
      ? mapping.format.delimiter
      : framing !== undefined &&
          (framing.headerRow !== undefined || framing.findHeader !== undefined)
        ? await framedDelimiter(file, decoding, framing)
        : sniffDelimiter(await firstLine(file, decoding));
  return {
    format: 'csv',
    encoding: recorded,
    delimiter,
    read: (options) => readDelimited(file, decoding, delimiter, options),
  };
}
