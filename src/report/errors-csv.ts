import type { DocumentRow, FileError, ReportProblem } from '../ledger/types.js';
import { ERRORS_CSV_COLUMNS } from '../policy/outbox-names.js';
import { AtomicWriter, removeDurably } from './atomic-write.js';

/**
 * Delimiter `;`. The users are Colombian offices whose spreadsheets use the decimal comma, so their
 * list separator is `;`: a double-clicked `;` file opens in columns there, while a `,` file opens as
 * one column. (A `sep=;` first line would force it elsewhere, but Excel then ignores the UTF-8 BOM
 * and breaks accents.) UTF-8 with BOM so accents survive; CRLF and RFC 4180 quoting.
 */
export const CSV_DELIMITER = ';';
const BOM = '\uFEFF';
const EOL = '\r\n';

export { ERRORS_CSV_COLUMNS };

/** States reported in errors.csv: the document did not succeed and needs a person. */
export const ERROR_STATES: ReadonlySet<string> = new Set([
  'rejected',
  'invalid',
  'failed',
  'in-doubt',
]);

/** One cell: formula-looking text neutralised (OWASP CSV injection), quoted when it must be. */
export function csvCell(value: string | number | null | undefined): string {
  let s = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[";,\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(cells: readonly (string | number | null | undefined)[]): string {
  return cells.map(csvCell).join(CSV_DELIMITER) + EOL;
}

/** 2,3,4,7 -> "2-4, 7": short and readable in one cell. */
export function formatPositions(positions: readonly number[] | undefined): string {
  if (!positions || positions.length === 0) return '';
  const sorted = [...positions].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = sorted[0];
  let prev = sorted[0];
  for (const n of [...sorted.slice(1), Number.NaN]) {
    if (n === prev + 1) {
      prev = n;
      continue;
    }
    parts.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = n;
    prev = n;
  }
  return parts.join(', ');
}

/**
 * "rows 2-4, 7" (CSV: every row of the document) or "lines 7" / "lines 115-206" (JSONL: its line; JSON: the
 * first and last line of its object, so two numbers are a span, never two separate lines); '' when the
 * place is not known.
 */
export function positionText(place: { rows?: number[]; lines?: number[] }): string {
  if (place.rows && place.rows.length > 0) return `rows ${formatPositions(place.rows)}`;
  const lines = place.lines;
  if (lines && lines.length === 2 && lines[1] > lines[0]) return `lines ${lines[0]}-${lines[1]}`;
  if (lines && lines.length > 0) return `lines ${formatPositions(lines)}`;
  return '';
}

function sourceText(doc: DocumentRow, problem?: ReportProblem): string {
  return (problem && positionText(problem)) || positionText(doc.source);
}

const FALLBACK: Record<string, string> = {
  failed: 'Gave up after every retry; the last attempt did not get an answer the service defines.',
  rejected: 'Rejected by the service.',
  invalid: 'Not valid; not sent.',
  'in-doubt':
    'Sent, but no answer came back; it is not resent automatically (see `edoc-bridge retry`).',
};

/**
 * A `duplicate` whose number another document holds at the service (EDOC_SERVICE_NUMBER_CLASH): it
 * was not issued and needs a new number, so it is reported like a rejection (errors.csv, retry file).
 */
export function isNumberClash(doc: DocumentRow): boolean {
  return (
    doc.state === 'duplicate' && doc.errors.some((e) => e.code === 'EDOC_SERVICE_NUMBER_CLASH')
  );
}

/** Codes that make a `duplicate` a failure: it was not issued as it stands, and a person must act. */
const FAILED_DUPLICATE_CODES: ReadonlySet<string> = new Set([
  'EDOC_SERVICE_NUMBER_CLASH',
  'EDOC_ISSUED_OTHER_CONTENT',
]);

/**
 * A `duplicate` reported as a failure (errors.csv, the retry file): a number clash (isNumberClash), or a
 * document whose number was issued with other content (EDOC_ISSUED_OTHER_CONTENT: a corrected re-export;
 * what it now says was never issued, and the issued document needs a credit or debit note).
 */
export function isFailedDuplicate(doc: DocumentRow): boolean {
  return (
    doc.state === 'duplicate' &&
    doc.errors.some((e) => e.code !== undefined && FAILED_DUPLICATE_CODES.has(e.code))
  );
}

/** The rows of errors.csv for one document ([] when it succeeded). */
export function errorRows(doc: DocumentRow): string[] {
  if (!ERROR_STATES.has(doc.state) && !isFailedDuplicate(doc)) return [];
  const problems = [...doc.problems, ...doc.errors];
  const key = doc.key ?? doc.source.erpKey;
  if (problems.length === 0) {
    return [
      csvRow([
        doc.index,
        key,
        doc.state,
        sourceText(doc),
        doc.resultCode ?? '',
        '',
        '',
        FALLBACK[doc.state],
      ]),
    ];
  }
  // one row per distinct problem: a column read by several request fields (a date that is also the due date) is one mistake
  return [
    ...new Set(
      problems.map((p) =>
        csvRow([
          doc.index,
          key,
          doc.state,
          sourceText(doc, p),
          p.code ?? doc.resultCode ?? '',
          p.field ?? '',
          p.value ?? '',
          p.message,
        ]),
      ),
    ),
  ];
}

/**
 * Streams NAME.errors.csv, creating it only when the first problem arrives; `commit()` writes it
 * atomically or, when nothing failed, removes a stale one from an earlier pass.
 */
export class ErrorsCsvWriter {
  private out: AtomicWriter | undefined;
  private rows = 0;

  /** `scrub` removes configured secrets from every row written (config/secrets.ts). */
  constructor(
    readonly target: string,
    private readonly scrub: (text: string) => string = (t) => t,
  ) {}

  private async open(): Promise<AtomicWriter> {
    if (!this.out) {
      this.out = await AtomicWriter.create(this.target);
      await this.out.write(BOM + csvRow(ERRORS_CSV_COLUMNS));
    }
    return this.out;
  }

  async addFileError(error: FileError): Promise<void> {
    const out = await this.open();
    await out.write(
      this.scrub(
        csvRow([
          '',
          '',
          'error',
          positionText(error),
          error.code,
          error.field ?? '',
          error.value ?? '',
          error.message,
        ]),
      ),
    );
    this.rows++;
  }

  async add(doc: DocumentRow): Promise<void> {
    const rows = errorRows(doc);
    if (rows.length === 0) return;
    const out = await this.open();
    for (const r of rows) await out.write(this.scrub(r));
    this.rows += rows.length;
  }

  get problemRows(): number {
    return this.rows;
  }

  /** Returns true when the file exists afterwards. */
  async commit(): Promise<boolean> {
    if (this.out) {
      await this.out.commit();
      return true;
    }
    await removeDurably(this.target);
    return false;
  }

  async abort(): Promise<void> {
    await this.out?.abort();
  }
}
