/**
 * One table's rows, SQLite → PostgreSQL, inside the copy's transaction: streamed from SQLite (the
 * statement's iterator, never the whole table), inserted as multi-row INSERTs with parameters in
 * batches bounded by rows and by bytes (one batch held at a time: 100,000 documents with their bodies
 * never sit in memory together), every row hashed on the way (table-checksum.ts); then read back from
 * PostgreSQL through a cursor and hashed again, for the comparison before COMMIT.
 *
 * Text columns are read from SQLite as their stored bytes (CAST AS BLOB) and decoded strictly, so what
 * is hashed is exactly what the file holds, and a value PostgreSQL's text cannot hold (a NUL character,
 * bytes that are not UTF-8) is an error naming its table, row and column instead of a changed document.
 */
import type Database from 'better-sqlite3';
import { EdocError, isEdocError } from '../errors.js';
import { quoted } from '../policy/excerpt.js';
import type { CopyColumn, CopyTable } from './copy-plan.js';
import { quoteName } from './copy-plan.js';
import type { SqlExecutor } from '../ledger/sql/executor.js';
import { TableChecksum } from './table-checksum.js';

/** PostgreSQL's limit of parameters in one statement (the protocol counts them in 16 bits). */
const MAX_PARAMS = 65_535;
/** What the read-back aims to hold per FETCH, and its bounds in rows. */
const FETCH_TARGET_BYTES = 4 * 1024 * 1024;
const FETCH_ROWS = { first: 500, min: 20, max: 5_000 };

export interface BatchLimits {
  /** Rows per INSERT at most. */
  rows: number;
  /** Bytes of text per INSERT at most (a single larger row goes alone). */
  bytes: number;
}

/** Called after each batch with the rows of this table done so far. */
export type RowsDone = (rows: number) => void;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const looseUtf8 = new TextDecoder('utf-8');

type SqliteValue = Buffer | bigint | number | string | null;

/** How an error names a row: its primary key (`documents id=42`, `kv key="cursor:main"`). */
function rowName(table: CopyTable, row: readonly SqliteValue[]): string {
  const parts = table.key.map((name) => {
    const value = row[table.columns.findIndex((c) => c.name === name)];
    if (Buffer.isBuffer(value)) return `${name}=${quoted(looseUtf8.decode(value))}`;
    return `${name}=${typeof value === 'string' ? quoted(value) : String(value)}`;
  });
  return `${table.name} ${parts.join(' ')}`;
}

function badValue(
  table: CopyTable,
  row: readonly SqliteValue[],
  column: CopyColumn,
  what: string,
): EdocError {
  const where = rowName(table, row);
  return new EdocError(
    'EDOC_LEDGER_COPY_VALUE',
    `The SQLite ledger's ${where}, column ${column.name}, ${what}: nothing was copied`,
    { table: table.name, key: where, column: column.name },
  );
}

/** A value as the INSERT parameter and as the bytes hashed for the checksum. */
function convert(
  table: CopyTable,
  row: readonly SqliteValue[],
  i: number,
): { param: string | bigint | null; bytes: Buffer | null } {
  const column = table.columns[i];
  const value = row[i];
  if (value === null) return { param: null, bytes: null };
  if (column.kind === 'text') {
    // CAST AS BLOB: always bytes here
    const bytes = value as Buffer;
    if (bytes.includes(0))
      throw badValue(
        table,
        row,
        column,
        'holds a NUL character, which PostgreSQL text cannot store',
      );
    try {
      return { param: strictUtf8.decode(bytes), bytes };
    } catch {
      throw badValue(
        table,
        row,
        column,
        'holds bytes that are not UTF-8, which PostgreSQL text cannot store',
      );
    }
  }
  if (typeof value === 'bigint') return { param: value, bytes: Buffer.from(value.toString()) };
  if (typeof value === 'number' && Number.isInteger(value))
    return { param: String(value), bytes: Buffer.from(String(value)) };
  throw badValue(
    table,
    row,
    column,
    typeof value === 'number'
      ? `holds ${value}, not an integer`
      : 'holds text where PostgreSQL has an integer column',
  );
}

const insertTexts = new Map<string, string>();

function insertSql(table: CopyTable, rows: number): string {
  const id = `${table.name}\u0000${table.columns.map((c) => c.name).join(',')}\u0000${rows}`;
  let text = insertTexts.get(id);
  if (text === undefined) {
    const one = `(${table.columns.map(() => '?').join(',')})`;
    text = `INSERT INTO ${quoteName(table.name)} (${table.columns.map((c) => quoteName(c.name)).join(', ')}) VALUES ${Array(rows).fill(one).join(',')}`;
    // a table's batches are all of one size but its last: two texts per table at most are worth keeping
    if (insertTexts.size > 64) insertTexts.clear();
    insertTexts.set(id, text);
  }
  return text;
}

/** Copies `table` from `sqlite` (inside its read transaction) into `tx`; returns the checksum of what was read. */
export async function copyRows(
  sqlite: Database.Database,
  tx: SqlExecutor,
  table: CopyTable,
  limits: BatchLimits,
  done: RowsDone,
): Promise<TableChecksum> {
  const columns = table.columns.map((c) =>
    c.kind === 'text' ? `CAST(${quoteName(c.name)} AS BLOB)` : quoteName(c.name),
  );
  const select = `SELECT ${columns.join(', ')} FROM ${quoteName(table.name)} ORDER BY ${table.key.map(quoteName).join(', ')}`;
  const statement = sqlite.prepare(select).raw(true).safeIntegers(true);
  const checksum = new TableChecksum();
  const maxRows = Math.max(1, Math.min(limits.rows, Math.floor(MAX_PARAMS / table.columns.length)));
  let params: (string | bigint | null)[] = [];
  let rows = 0;
  let bytes = 0;
  let first: SqliteValue[] | undefined;
  let last: SqliteValue[] | undefined;
  const send = async (
    batch: typeof params,
    count: number,
    from: SqliteValue[],
    to: SqliteValue[],
    doneSoFar: number,
  ): Promise<void> => {
    try {
      await tx.run(insertSql(table, count), batch);
    } catch (err) {
      if (isEdocError(err)) throw err;
      // a CHECK or NOT NULL of the PostgreSQL schema the SQLite row breaks: its message names the constraint, not the values
      const range =
        count === 1
          ? rowName(table, from)
          : `${rowName(table, from)} to ${rowName(table, to).slice(table.name.length + 1)}`;
      throw new EdocError(
        'EDOC_LEDGER_COPY_VALUE',
        `PostgreSQL refused the SQLite ledger's ${range}: ${(err as Error).message}; nothing was copied`,
        { table: table.name, sqlState: (err as { code?: string }).code },
        { cause: err },
      );
    }
    done(doneSoFar);
  };
  // One INSERT in flight while the next batch is read and hashed: the database and this process work at
  // the same time, and no more than two batches are held.
  let inFlight: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    if (rows === 0 || first === undefined || last === undefined) return;
    const sending = send(params, rows, first, last, checksum.rows);
    // its failure is seen when it is awaited, below or at the next flush; until then it must not count as unhandled
    sending.catch(() => undefined);
    params = [];
    rows = 0;
    bytes = 0;
    first = undefined;
    const previous = inFlight;
    inFlight = sending;
    await previous;
  };
  for (const row of statement.iterate() as IterableIterator<SqliteValue[]>) {
    const hashed: (Buffer | null)[] = [];
    for (let i = 0; i < row.length; i++) {
      const value = convert(table, row, i);
      params.push(value.param);
      hashed.push(value.bytes);
      bytes += value.bytes?.length ?? 0;
    }
    checksum.add(hashed);
    first ??= row;
    last = row;
    rows++;
    if (rows >= maxRows || bytes >= limits.bytes) await flush();
  }
  await flush();
  await inFlight;
  return checksum;
}

/** Reads `table` back from PostgreSQL (inside the copy's transaction: its own uncommitted rows) and hashes it as copyRows did. */
export async function checksumRows(
  tx: SqlExecutor,
  table: CopyTable,
  done: RowsDone,
): Promise<TableChecksum> {
  const columns = table.columns.map((c, i) => `${quoteName(c.name)}::text AS c${i}`);
  await tx.exec(
    `DECLARE edoc_copy_check NO SCROLL CURSOR FOR SELECT ${columns.join(', ')} FROM ${quoteName(table.name)}`,
  );
  const checksum = new TableChecksum();
  let fetch = FETCH_ROWS.first;
  for (;;) {
    const rows = await tx.all<Record<string, string | null>>(`FETCH ${fetch} FROM edoc_copy_check`);
    let bytes = 0;
    for (const row of rows) {
      const hashed = table.columns.map((_, i) => {
        const text = row[`c${i}`];
        if (text === null) return null;
        const value = Buffer.from(text, 'utf8');
        bytes += value.length;
        return value;
      });
      checksum.add(hashed);
    }
    done(checksum.rows);
    if (rows.length < fetch) break;
    // bodies of a few KB or of a few MB: the next FETCH aims at a bounded size, not a fixed count
    fetch = Math.max(
      FETCH_ROWS.min,
      Math.min(FETCH_ROWS.max, Math.floor((fetch * FETCH_TARGET_BYTES) / Math.max(bytes, 1))),
    );
  }
  await tx.exec('CLOSE edoc_copy_check');
  return checksum;
}
