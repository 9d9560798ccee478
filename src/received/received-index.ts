/**
 * The running index outbox/received/<company>/received.csv: one row per
 * document written, in the order they were written. UTF-8 with BOM, `;`,
 * CRLF, RFC 4180 quoting and formula neutralising (the same cells as
 * errors.csv, so both open the same way in the offices' spreadsheets).
 *
 * Appended, not rewritten: a years-long index is never copied on each pull.
 * Each append is one write of whole rows followed by fsync. A row is appended
 * only after the ledger recorded the document, so on a restart the index may
 * lack the last rows the ledger has (never the reverse); `has(key)` lets the
 * puller add them, and a row torn by a crash mid-write is cut off on open.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { fsyncDir } from '../report/atomic-write.js';
import { writeWhole } from '../storage/write-whole.js';
import { CSV_DELIMITER, csvRow } from '../report/errors-csv.js';
import { EdocError } from '../errors.js';
import type { IndexFields } from './received-files.js';

export const RECEIVED_INDEX_FILE = 'received.csv';

export const RECEIVED_INDEX_COLUMNS = [
  'documentDate',
  'documentNumber',
  'providerIdentification',
  'providerName',
  'documentType',
  'typeCode',
  'currency',
  'value',
  'cufe',
  'receivedDate',
  'jsonFile',
  'pdfFile',
  'note',
] as const satisfies readonly (keyof IndexFields)[];

const BOM = '\uFEFF';
const KEY_COLUMN = RECEIVED_INDEX_COLUMNS.indexOf('cufe');

function writeError(file: string, err: unknown): EdocError {
  return new EdocError(
    'EDOC_REPORT_WRITE',
    `Could not write ${file}: ${(err as Error).message}`,
    { file, errno: (err as NodeJS.ErrnoException).code },
    { cause: err },
  );
}

/** csvCell prefixes a formula-looking value with `'`; the key column is read back without it. */
function unneutralise(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}

export class ReceivedIndex {
  private constructor(
    readonly file: string,
    private readonly keys: Set<string>,
    private bytes: number,
  ) {}

  /** Opens (or creates) the index of a company folder, repairing a torn last row. */
  static async open(companyDir: string): Promise<ReceivedIndex> {
    const file = path.join(companyDir, RECEIVED_INDEX_FILE);
    await fsp.mkdir(companyDir, { recursive: true });
    let content: string;
    try {
      content = await fsp.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError(file, err);
      content = '';
    }
    const header = csvRow(RECEIVED_INDEX_COLUMNS);
    if (!content.replace(BOM, '').startsWith(header))
      return ReceivedIndex.fresh(file, content !== '');
    // Cells never hold line breaks (see indexFields), so a last line without one is a row torn by a crash.
    const end = content.lastIndexOf('\n') + 1;
    if (end < content.length) {
      await fsp.truncate(file, Buffer.byteLength(content.slice(0, end)));
      content = content.slice(0, end);
    }
    let rows: string[][];
    try {
      rows = parse(content, {
        delimiter: CSV_DELIMITER,
        bom: true,
        relax_column_count: true,
        skip_empty_lines: true,
      }) as string[][];
    } catch {
      return ReceivedIndex.fresh(file, true);
    }
    const keys = new Set<string>();
    for (const row of rows.slice(1)) {
      const key = row[KEY_COLUMN];
      if (key !== undefined && key !== '') keys.add(unneutralise(key));
    }
    return new ReceivedIndex(file, keys, Buffer.byteLength(content));
  }

  /** A new index with only its header; a file that is not ours (or broken) is kept aside, not overwritten. */
  private static async fresh(file: string, keepAside: boolean): Promise<ReceivedIndex> {
    if (keepAside) await fsp.rename(file, `${file}.${Date.now()}.bak`);
    const header = BOM + csvRow(RECEIVED_INDEX_COLUMNS);
    await appendDurably(file, header);
    return new ReceivedIndex(file, new Set(), Buffer.byteLength(header));
  }

  /**
   * This index, or a freshly read one when the file is no longer what this
   * process last wrote (deleted, edited, or torn by a failed append).
   */
  async refreshed(): Promise<ReceivedIndex> {
    const size = await fsp.stat(this.file).then(
      (st) => st.size,
      () => -1,
    );
    return size === this.bytes ? this : ReceivedIndex.open(path.dirname(this.file));
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Appends the row unless the index already holds the document. Returns false when it did. */
  async append(fields: IndexFields): Promise<boolean> {
    if (this.keys.has(fields.cufe)) return false;
    const row = csvRow(RECEIVED_INDEX_COLUMNS.map((column) => fields[column]));
    await appendDurably(this.file, row);
    this.keys.add(fields.cufe);
    this.bytes += Buffer.byteLength(row);
    return true;
  }
}

async function appendDurably(file: string, text: string): Promise<void> {
  let fh: fsp.FileHandle | undefined;
  let before: number | undefined;
  try {
    const created = !fs.existsSync(file);
    fh = await fsp.open(file, 'a', 0o640);
    before = (await fh.stat()).size;
    // whole rows or none: a short write on a full disk would leave a torn row the next append ends
    await writeWhole(fh, Buffer.from(text, 'utf8'));
    await fh.sync();
    await fh.close();
    fh = undefined;
    if (created) await fsyncDir(path.dirname(file));
  } catch (err) {
    if (fh !== undefined && before !== undefined) await fh.truncate(before).catch(() => undefined);
    await fh?.close().catch(() => undefined);
    throw writeError(file, err);
  }
}
