/**
 * A master-data table file (the ERP's export of customers, suppliers or employees, CSV or TXT) read as
 * the configured table: the header's names matched like an export's (case and spacing ignored), the
 * key column and the configured columns kept, every row by its id. Anything that cannot be read right
 * refuses the whole file (EDOC_MASTER_BAD_FILE naming the file, the row and the column): a table is
 * used whole or not at all, never with rows guessed.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { EdocError, isEdocError } from '../errors.js';
import { excerpt } from '../policy/excerpt.js';
import { firstLine, sniffDelimiter, type CsvDelimiter } from './csv-encoding.js';
import { oneEncoding } from './csv-one-encoding.js';
import { indexHeader, normaliseColumnName } from './csv-header.js';
import { readCsvRecords } from './csv-records.js';

export interface MasterFileSpec {
  /** The table's name (for messages). */
  table: string;
  key: string;
  columns: readonly string[];
  encoding: 'auto' | 'utf-8' | 'windows-1252';
  delimiter: 'auto' | ';' | ',' | 'tab';
  maxRecordBytes?: number;
  signal?: AbortSignal;
}

export interface MasterFile {
  /** The configured columns, in configuration order (the cells of each row follow it). */
  columns: string[];
  /** id (trimmed) -> cells (trimmed) in `columns` order. */
  rows: Map<string, string[]>;
  sha256: string;
  encoding: string;
}

const EXTENSIONS = new Set(['.csv', '.txt']);

/** Whether a file in a table's folder is a table file (not a marker, a temporary or an owner file). */
export function isMasterFileName(name: string): boolean {
  return (
    !name.startsWith('.') &&
    !name.startsWith('~$') &&
    EXTENSIONS.has(path.extname(name).toLowerCase())
  );
}

function bad(
  file: string,
  table: string,
  where: string,
  message: string,
  context: Record<string, unknown> = {},
): EdocError {
  return new EdocError(
    'EDOC_MASTER_BAD_FILE',
    `Master table "${table}": ${path.basename(file)}${where}: ${message}; ` +
      'the table in use stays as it was',
    { file, table, ...context },
  );
}

/**
 * The file's encoding, once its bytes are text in that one encoding (read/csv-one-encoding.ts, as for an
 * export): a table with one row pasted in another encoding, or a NUL byte, would give a customer's name
 * as "MarÃ­a" or "Mar\0a" to every document that reads it.
 */
async function inOneEncoding(file: string, spec: MasterFileSpec) {
  try {
    return await oneEncoding(file, spec.encoding);
  } catch (err) {
    if (!isEdocError(err, 'EDOC_READ_ENCODING') && !isEdocError(err, 'EDOC_READ_BINARY')) throw err;
    // the reader's own finding (which encoding, which lines), without what it means for an export
    const name = path.basename(file);
    const what = typeof err.context.finding === 'string' ? err.context.finding : '';
    const fix =
      err.code === 'EDOC_READ_BINARY' ? 'export it again' : 'save the whole file in one encoding';
    throw new EdocError(
      'EDOC_MASTER_BAD_FILE',
      `Master table "${spec.table}": ${name} ${what || 'is not text in one encoding'}; ${fix}; ` +
        'the table in use stays as it was',
      { file, table: spec.table, row: err.context.row, reason: err.code },
    );
  }
}

/** Reads and checks a whole table file; throws EDOC_MASTER_BAD_FILE. */
export async function readMasterFile(file: string, spec: MasterFileSpec): Promise<MasterFile> {
  const { decoding } = await inOneEncoding(file, spec);
  const delimiter: CsvDelimiter =
    spec.delimiter === 'auto'
      ? sniffDelimiter(await firstLine(file, decoding))
      : spec.delimiter === 'tab'
        ? '\t'
        : spec.delimiter;
  const hash = createHash('sha256');
  const wanted = [spec.key, ...spec.columns];
  let at: number[] | undefined;
  const rows = new Map<string, string[]>();
  const rowOf = new Map<string, number>();
  try {
    for await (const record of readCsvRecords(file, decoding, delimiter, {
      hash,
      raw: false,
      maxRecordBytes: spec.maxRecordBytes,
      ...(spec.signal ? { signal: spec.signal } : {}),
    })) {
      if (at === undefined) {
        const header = indexHeader(record.cells);
        const missing = wanted.filter((c) => !header.has(normaliseColumnName(c)));
        if (missing.length > 0) {
          throw bad(
            file,
            spec.table,
            ', row 1',
            `no column ${missing.map((c) => `"${excerpt(c, 60)}"`).join(', ')} in the header ` +
              `(it has: ${excerpt(record.cells.join(', '), 300)})`,
            { row: 1, column: missing[0] },
          );
        }
        // a column kept that the header names twice (a personal and a billing `Correo`) cannot be told apart
        const twice = wanted.find(
          (c) =>
            record.cells.filter((h) => normaliseColumnName(h) === normaliseColumnName(c)).length >
            1,
        );
        if (twice !== undefined) {
          throw bad(
            file,
            spec.table,
            ', row 1',
            `column "${excerpt(twice, 60)}" is named twice in the header: which one is meant cannot be told`,
            { row: 1, column: twice },
          );
        }
        at = wanted.map((c) => header.get(normaliseColumnName(c))!);
        continue;
      }
      const cells = at.map((i) => (record.cells[i] ?? '').trim());
      if (cells.every((c) => c === '')) continue; // a blank line
      // a row that ends before a configured column: cut short (the end of a file still being written, whose
      // last cell may be cut too: `Distribuidora An`), never read as blank cells
      const short = wanted.find((_c, i) => at![i] >= record.cells.length);
      if (short !== undefined) {
        throw bad(
          file,
          spec.table,
          `, row ${record.row}, column "${short}"`,
          `the row ends before this column (${record.cells.length} cells; a row cut short, or a file still being written)`,
          { row: record.row, column: short },
        );
      }
      const id = cells[0];
      if (id === '') {
        throw bad(
          file,
          spec.table,
          `, row ${record.row}, column "${spec.key}"`,
          'the id is empty',
          { row: record.row, column: spec.key },
        );
      }
      const data = cells.slice(1);
      const earlier = rows.get(id);
      if (earlier !== undefined) {
        const differs = spec.columns.find((_c, i) => earlier[i] !== data[i]);
        if (differs !== undefined) {
          throw bad(
            file,
            spec.table,
            `, row ${record.row}, column "${differs}"`,
            `id ${JSON.stringify(excerpt(id, 60))} is on row ` +
              `${rowOf.get(id)} too, with another "${differs}"; one id is one row`,
            { row: record.row, column: differs },
          );
        }
        continue;
      }
      rows.set(id, data);
      rowOf.set(id, record.row);
    }
  } catch (err) {
    if (isEdocError(err, 'EDOC_MAP_CSV_SYNTAX') || isEdocError(err, 'EDOC_READ_RECORD_TOO_LARGE')) {
      const row = err.context.row;
      throw bad(
        file,
        spec.table,
        typeof row === 'number' ? `, row ${row}` : '',
        excerpt(err.message, 200),
        { row },
      );
    }
    throw err;
  }
  if (at === undefined) throw bad(file, spec.table, '', 'the file is empty (no header)');
  if (rows.size === 0)
    throw bad(
      file,
      spec.table,
      ', row 2',
      'no rows under the header (a table is used whole, not emptied)',
    );
  return { columns: [...spec.columns], rows, sha256: hash.digest('hex'), encoding: decoding };
}
