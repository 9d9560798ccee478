import type { DocumentRow, FileProgress, FileRow, ReportProblem } from '../ledger/types.js';
import { identifiersIn, issuedNumberIn, type IssuedNumber } from '../service/issued.js';
import { AtomicWriter } from './atomic-write.js';

export interface ResultCounts {
  total: number;
  accepted: number;
  rejected: number;
  invalid: number;
  failed: number;
  duplicate: number;
  inDoubt: number;
}

/** One entry of `documents` in NAME.result.json (PRODUCT.md "Outputs"). */
export interface ResultDocument {
  index: number;
  source: { rows?: number[]; lines?: number[]; erpKey?: string };
  key: string | null;
  status: string;
  resultCode: string | null;
  httpStatus: number | null;
  errors: ReportProblem[];
  warnings: string[];
  response: unknown;
  /** Only for `in-doubt`: why (`no-answer`, `repeated-number`; docs/operations.md). */
  doubt?: string;
  /** What was issued, as data; null unless the document is `accepted` (docs/operations.md "result.json"). */
  issued: Issued | null;
}

/**
 * The number a document was issued under and every identifier the service returned for it: `prefix`
 * and `number` (the document's own, or the one the service assigned), `numberedBy` (`erp` or
 * `service`), and the response's identifiers under the spec's names (POS: `cude`, `qr`, `idDocumento`).
 */
export interface Issued {
  prefix: string | null;
  number: string | null;
  numberedBy: 'erp' | 'service';
  [identifier: string]: string | number | null;
}

/** `company/kind/prefix/number` → prefix and number (a prefix may hold a `/`, a number never does). */
function keyNumber(key: string | null): IssuedNumber | undefined {
  const parts = key?.split('/') ?? [];
  return parts.length < 4
    ? undefined
    : { prefix: parts.slice(2, -1).join('/'), number: parts[parts.length - 1] };
}

export function issuedOf(d: DocumentRow): Issued | null {
  if (d.state !== 'accepted') return null;
  // the key holds the assigned number since it was accepted; older ledgers: read from the stored answer
  const n = keyNumber(d.key) ?? issuedNumberIn(d.response, d.warnings);
  return {
    prefix: n?.prefix ?? null,
    number: n?.number ?? null,
    numberedBy: d.ownNumber ? 'erp' : 'service',
    ...identifiersIn(d.response),
  };
}

/** What a spreadsheet's report says of its retry file (read/sheet-source.ts writes each row as a CSV line). */
export const SPREADSHEET_RETRY =
  "csv: the retry file of a spreadsheet is NAME.retry.csv, a CSV file with the sheet's columns";

/** In a duplicate drop's report: the earlier file with the same content, its report and when it was processed. */
export interface DuplicateOf {
  file: string;
  /** Its result.json, relative to this report's folder (`NAME.result.json`, or `archive/…` once moved aside). */
  result: string;
  startedAt: string;
  finishedAt: string | null;
}

export function resultCounts(progress: FileProgress): ResultCounts {
  const c = progress.counts;
  return {
    total: progress.total,
    accepted: c.accepted,
    rejected: c.rejected,
    invalid: c.invalid,
    failed: c.failed,
    duplicate: c.duplicate,
    inDoubt: c['in-doubt'],
  };
}

/**
 * What became of a file's documents read from its earlier content, counted: said where the file changed
 * after sending began, since "sent" alone would call accepted what is in doubt, on its way or never sent.
 */
export function sentFromEarlier(progress: FileProgress): string {
  const c = resultCounts(progress);
  const parts = (
    [
      [c.accepted, 'accepted'],
      [c.inDoubt, 'in doubt (it may be issued: check on the service, then edoc-bridge resolve)'],
      [progress.counts.sending, 'being sent'],
      [progress.counts.pending, 'waiting to be sent (they still go, from the earlier content)'],
      [c.failed, 'failed'],
      [c.rejected, 'rejected'],
      [c.invalid, 'invalid (not sent)'],
      [c.duplicate, 'duplicate (not sent again)'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`);
  return `of its ${c.total} document(s) read from the earlier content: ${parts.length === 0 ? 'none' : parts.join(', ')}`;
}

export function resultDocument(d: DocumentRow): ResultDocument {
  return {
    index: d.index,
    source: d.source,
    key: d.key,
    status: d.state,
    resultCode: d.resultCode,
    httpStatus: d.httpStatus,
    // mapping and validation problems first: they explain why nothing was sent
    errors: [...d.problems, ...d.errors],
    warnings: d.warnings,
    response: d.response,
    ...(d.doubt === null ? {} : { doubt: d.doubt }),
    issued: issuedOf(d),
  };
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/**
 * Streams NAME.result.json: the head, then one document per line as they come, then the tail — a
 * 200,000-document file never becomes one string. `finishedAt` stays null until the file is done,
 * so a reader can tell a progress report from the final one.
 */
export class ResultFileWriter {
  private first = true;
  private count = 0;

  private constructor(
    private readonly out: AtomicWriter,
    private readonly scrub: (text: string) => string,
  ) {}

  /**
   * `duplicateOf`: in a duplicate drop's report, the earlier file; `scrub` removes configured secrets
   * from every line written (config/secrets.ts).
   */
  static async begin(
    target: string,
    file: FileRow,
    progress: FileProgress,
    duplicateOf?: DuplicateOf,
    scrub: (text: string) => string = (t) => t,
  ): Promise<ResultFileWriter> {
    const out = await AtomicWriter.create(target);
    const done = file.state === 'done' || (file.state === 'failed-read' && progress.final);
    const head: Record<string, unknown> = {
      file: file.name,
      kind: file.kind,
      company: file.company,
      sha256: file.sha256,
      startedAt: iso(file.startedAt),
      finishedAt: done ? iso(file.finishedAt) : null,
    };
    if (file.error) head.error = { code: file.error.code, message: file.error.message };
    if (file.format === 'xlsx' || file.format === 'xls') head.retryFormat = SPREADSHEET_RETRY;
    if (duplicateOf !== undefined) head.duplicateOf = duplicateOf;
    head.counts = resultCounts(progress);
    const text = JSON.stringify(head, null, 2);
    try {
      // reopen the object to append the streamed array
      await out.write(scrub(`${text.slice(0, -2)},\n  "documents": [`));
    } catch (err) {
      await out.abort();
      throw err;
    }
    return new ResultFileWriter(out, scrub);
  }

  async add(doc: DocumentRow): Promise<void> {
    const line = this.scrub(JSON.stringify(resultDocument(doc)));
    await this.out.write(this.first ? `\n    ${line}` : `,\n    ${line}`);
    this.first = false;
    this.count++;
  }

  get documents(): number {
    return this.count;
  }

  async commit(): Promise<void> {
    await this.out.write(this.first ? ']\n}\n' : '\n  ]\n}\n');
    await this.out.commit();
  }

  abort(): Promise<void> {
    return this.out.abort();
  }
}
