/**
 * The part of an intake that needs no ledger: open the file, read and map it, validate each document,
 * and turn it into what the ledger stores (request text, key, problems, source), in batches. It runs
 * in the intake worker (`intake-reader.ts`) in the daemon, or in-process where no worker is at hand,
 * the same code either way; the caller does the ledger inserts and the verification of the read.
 */
import { createHash, type Hash } from 'node:crypto';
import { isEdocError } from '../errors.js';
import type { NewDocument, ReportProblem } from '../ledger/types.js';
import type { SecretScrubber } from '../log/secrets.js';
import type { Mapping } from '../map/mapping-types.js';
import type { MasterTables } from '../map/master-tables.js';
import { excerpt } from '../policy/excerpt.js';
import { openSource } from '../read/open-source.js';
import type { RowMark } from '../read/row-mark.js';
import type { TextFacts } from '../read/text-facts.js';
import { notAPart } from '../read/set-part-errors.js';
import { openSetSource, type SetFiles } from '../read/set-source.js';
import type { OpenedSource, SourceDocument, SourceFormat } from '../read/source-document.js';
import { documentKey } from '../kinds/document-key.js';
import { contentSummary, kindOf, referencedNumbers, type DocumentKind } from '../kinds/index.js';
import { distinctProblems, type Problem } from '../validate/problem.js';
import { validateDocument } from '../kinds/validate-document.js';
import { placed } from '../map/request-place.js';

/**
 * Documents committed per ledger transaction while a file is read (held back: none is due before the
 * whole file was read and verified, so a big file's first request leaves after its read).
 */
export const INSERT_BATCH = 500;

/** What reading one file needs: plain data, so it can be handed to a worker thread. */
export interface ReadJob {
  path: string;
  kind: DocumentKind;
  company: { alias: string; nit: string };
  mapping?: Mapping;
  /** The master-data tables the mapping reads, one version each (loaded from the ledger by the caller). */
  master?: MasterTables;
  /** Size and mtime when the file was hashed: a file that differs at open is `EDOC_READ_CHANGED`. */
  expect: { size: number; mtimeMs: number };
  /** What the hash's pass saw of those bytes as text (read/text-facts.ts): spares the read passes of its own. */
  text?: TextFacts;
  maxRecordBytes: number;
  /** Colombia's date the documents are validated against. */
  today: string;
  /** An export in two files (the mapping's `parts`): the header and lines files of the set. */
  parts?: SetFiles;
  /** The E3 `tipo` the file's POS documents are sent as (`posTipoFor`): a receipt and its note are two documents. */
  posTipo?: string;
}

export interface ReadDetails {
  format: SourceFormat;
  encoding: string;
  /** CSV: the header line, configured secrets redacted. */
  header: string | null;
}

/** An opened file's documents, in batches of up to INSERT_BATCH, ready for `Ledger.insertDocuments`. */
export interface DocumentBatches {
  details: ReadDetails;
  batches: AsyncIterable<NewDocument[]>;
  /** The SHA-256 (hex) of the bytes the documents came from; once `batches` ended. */
  sha256(): string;
}

/**
 * Opens the file (file-level errors throw here or from `batches`) and reads it in batches; `cut`, asked
 * after each document, ends a batch early (the intake worker's turn is due: worker-turns.ts).
 */
export async function readDocumentBatches(
  job: ReadJob,
  secrets: SecretScrubber,
  signal?: AbortSignal,
  mark?: RowMark,
  cut?: () => boolean,
): Promise<DocumentBatches> {
  const hash = createHash('sha256');
  const opened = await openJob(job, hash, signal, mark);
  // A key as a column name is kept nowhere either: the retry file's header shows [redacted] in its place.
  const header = opened.header === undefined ? null : secrets.scrub(opened.header);
  let digest: string | undefined;
  async function* batches(): AsyncGenerator<NewDocument[]> {
    let batch: NewDocument[] = [];
    try {
      for await (const doc of opened.documents) {
        batch.push(toNewDocument(doc, job, secrets));
        if (batch.length >= INSERT_BATCH || cut?.() === true) {
          yield batch;
          batch = [];
        }
      }
    } catch (err) {
      // refused whole: the documents read before the row at fault are stored (held back, never released)
      // so that the ledger keeps what they were when it removes them (ledger/file-reading.ts refuseWhole)
      if (batch.length > 0 && isEdocError(err, 'EDOC_MAP_FORMAT_MISMATCH')) yield batch;
      throw err;
    }
    if (batch.length > 0) yield batch;
    digest = hash.digest('hex');
  }
  return {
    details: { format: opened.format, encoding: opened.encoding, header },
    batches: batches(),
    sha256: () => {
      if (digest === undefined) throw new Error('the read has not ended');
      return digest;
    },
  };
}

/** The file, or the two files of a set (map/parts.ts); a lone file where the mapping reads sets is refused. */
function openJob(
  job: ReadJob,
  hash: Hash,
  signal?: AbortSignal,
  mark?: RowMark,
): Promise<OpenedSource> {
  const parts = job.mapping?.parts;
  if (parts !== undefined && job.mapping !== undefined) {
    if (job.parts === undefined) throw notAPart(job.path, parts);
    return openSetSource(job.parts, job.mapping, {
      kind: job.kind,
      company: job.company,
      maxRecordBytes: job.maxRecordBytes,
      ...(job.master ? { master: job.master } : {}),
      ...(signal ? { signal } : {}),
      ...(mark ? { mark } : {}),
      hash,
    });
  }
  return openSource(job.path, job.kind, {
    company: job.company,
    ...(job.mapping ? { mapping: job.mapping } : {}),
    ...(job.master ? { master: job.master } : {}),
    expect: job.expect,
    ...(job.text ? { text: job.text } : {}),
    maxRecordBytes: job.maxRecordBytes,
    ...(signal ? { signal } : {}),
    ...(mark ? { mark } : {}),
    hash,
  });
}

/**
 * What the ledger (and so every report) keeps of a message about the input: configured secrets
 * removed, and never longer than MESSAGE_CHARS — each reader and rule quotes input through
 * policy/excerpt.ts already; this is the backstop for one that does not.
 */
const MESSAGE_CHARS = 1_000;
/** Above an excerpt's own length, so a value the reader cut already is not cut again. */
const VALUE_CHARS = 200;

export function bounded(text: string, secrets: SecretScrubber): string {
  return excerpt(secrets.scrub(text), MESSAGE_CHARS);
}

/**
 * The stored form of a document. The parsed request itself is not kept in it: its text is (`requestText`,
 * or `raw` when `requestFromRaw`), so only strings and small objects cross to the ledger's thread.
 */
function toNewDocument(
  doc: SourceDocument,
  readJob: ReadJob,
  secrets: SecretScrubber,
): NewDocument {
  // a routed document (one export, several kinds) is validated, keyed and stored as its own kind
  const job = doc.kind === undefined ? readJob : { ...readJob, kind: doc.kind };
  const problems: Problem[] = [...doc.problems];
  if (doc.request !== undefined && problems.length === 0) {
    const found = validateDocument(job.kind, doc.request, {
      today: job.today,
      issuerNit: job.company.nit,
      ...(job.posTipo === undefined ? {} : { posTipo: job.posTipo }),
    });
    // a mapped document's problems in the export's words: its column and row, not the request's path
    problems.push(...placed(found, doc.place));
  }
  const key = doc.request === undefined ? undefined : documentKey(job.kind, doc.request);
  const erpKey =
    key === undefined && 'key' in doc && typeof doc.key === 'string' && doc.key !== ''
      ? doc.key
      : undefined;
  const out: NewDocument = {
    index: doc.index,
    source:
      erpKey === undefined
        ? doc.source
        : { ...doc.source, erpKey: excerpt(secrets.scrub(erpKey), VALUE_CHARS) },
    ownNumber: key !== undefined,
    raw: doc.raw,
    number: key === undefined ? null : `${key.prefix}/${key.number}`,
    ...(key === undefined ? {} : { numberField: numberField(job.kind, doc) }),
    customer: customerOf(job.kind, doc.request, secrets),
    problems: distinctProblems(problems).map((p) => toReportProblem(p, secrets)),
    ...(doc.kind === undefined ? {} : { kind: doc.kind }),
  };
  // numbered by the service: the ERP's key is what tells a re-export of an issued document (ledger/erp-keys.ts)
  const keyId = key === undefined && 'keyId' in doc ? doc.keyId : undefined;
  // a POS adjustment note may carry its sale's ticket: the ERP key of a POS document is scoped by its tipo
  // (a tipo's name, never the digits of a key alternative, leads; a plain `pos` receipt's key is as before)
  const tipo = job.kind === 'pos' && job.posTipo !== 'pos' ? job.posTipo : undefined;
  if (typeof keyId === 'string' && job.mapping?.keyRepeats !== true)
    out.erpKey = secrets.scrub(
      JSON.stringify([...(tipo === undefined ? [] : [tipo]), ...keyId.split('\u001f')]),
    );
  // The request is checked too: JSON `\u` escapes hide a key from the text, not from the parsed request.
  // A JSON/JSONL document whose text has no escape at all holds every string of its request verbatim in
  // that text, which was just checked, and is stored as that text: no serialisation of it is needed. Any
  // other request's text is made once here, checked, and stored as is.
  const requestText =
    doc.request === undefined || doc.requestFromRaw === true
      ? undefined
      : JSON.stringify(doc.request);
  const escaped =
    doc.request !== undefined && doc.requestFromRaw === true && doc.raw.includes('\\');
  if (
    secrets.has(doc.raw) ||
    (requestText !== undefined && secrets.has(requestText)) ||
    (escaped && secrets.has(JSON.stringify(doc.request)))
  ) {
    // A configured API key inside a document (a key file dropped as .jsonl, a key pasted into a cell):
    // never sent to the authority, and kept nowhere — the retry file gets the text with it redacted.
    out.raw = secrets.scrub(doc.raw);
    // Text that hides the key in escapes (`\u0074…`) is kept as the parsed document with the key redacted.
    if (out.raw === doc.raw && doc.requestFromRaw === true)
      out.raw = secrets.scrub(JSON.stringify(doc.request));
    out.problems = [
      {
        code: 'EDOC_READ_SECRET',
        message:
          'The document holds a configured API key: it is not sent, and the key is not kept (replaced by [redacted])',
      },
      ...(out.problems ?? []),
    ];
    return out;
  }
  const mayGo = out.problems === undefined || out.problems.length === 0;
  // a note's referenced documents: the ledger holds it when it knows them as never issued
  const references =
    mayGo && doc.request !== undefined ? referencedNumbers(job.kind, doc.request) : [];
  if (references.length > 0) out.references = references.map((r) => secrets.scrub(r));
  if (doc.requestFromRaw === true && doc.request !== undefined) {
    out.requestFromRaw = true;
    // A text exactly as JSON.stringify writes the request is sent as stored, never parsed and written again
    // (ledger claimDue); any other (blanks, escapes, numbers written otherwise, a repeated name) is
    // serialised from the parsed request at each send, as it was validated. Only for documents that may go.
    if (mayGo) {
      const text = JSON.stringify(doc.request);
      out.rawIsRequestText = text === doc.raw;
      out.content = JSON.stringify(contentSummary(job.kind, doc.request, text));
    }
  } else if (requestText !== undefined) {
    out.requestText = requestText;
    // what a later copy under the same number is compared with (EDOC_ISSUED_OTHER_CONTENT)
    if (mayGo) out.content = JSON.stringify(contentSummary(job.kind, doc.request, requestText));
  }
  return out;
}

/** The customer id the console searches by (scrubbed like everything else the ledger keeps of the input). */
function customerOf(kind: DocumentKind, request: unknown, secrets: SecretScrubber): string | null {
  const id = request === undefined ? undefined : kindOf(kind).customer(request);
  return id === undefined ? null : secrets.scrub(id);
}

/** Where a document's own number was read: the export's column, else the request's path. */
function numberField(kind: DocumentKind, doc: SourceDocument): string {
  const at = kindOf(kind).numberPath;
  return doc.place?.(at)?.column ?? at;
}

export function toReportProblem(p: Problem, secrets: SecretScrubber): ReportProblem {
  const out: ReportProblem = { code: p.code, message: bounded(p.message, secrets) };
  const field = p.column ?? (p.path === '' ? undefined : p.path);
  if (field !== undefined) out.field = bounded(field, secrets);
  if (p.value !== undefined) out.value = excerpt(secrets.scrub(p.value), VALUE_CHARS);
  if (p.rows !== undefined) out.rows = p.rows;
  return out;
}
