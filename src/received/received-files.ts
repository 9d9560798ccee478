/**
 * What one received document becomes on disk (pure): its identity, its month
 * folder, its file names and its decoded PDF. Deterministic, so a restart
 * after a crash computes the same names and overwrites, never duplicates.
 */
import { createHash } from 'node:crypto';
import { writtenDay } from '../policy/dates.js';
import { sanitizeName } from '../policy/outbox-names.js';

/** A received document as the service sent it: every key kept, nothing assumed beyond being an object. */
export type ReceivedRecord = Readonly<Record<string, unknown>>;

export const SHORT_CUFE_LENGTH = 12;
const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

function text(record: ReceivedRecord, key: string): string {
  const value = record[key];
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

/**
 * The document's identity in the ledger and the index: the cufe, the
 * documentId when the cufe is empty, and (neither being sent) a hash of the
 * record so it is still written once.
 */
export function receivedKey(record: ReceivedRecord): string {
  const cufe = text(record, 'cufe');
  if (cufe !== '') return cufe;
  const documentId = text(record, 'documentId');
  if (documentId !== '') return documentId;
  return `sha256-${createHash('sha256').update(JSON.stringify(record)).digest('hex')}`;
}

/**
 * `yyyy-MM-dd` of the HTTP-date `documentDate` (midnight GMT), the day as written when it comes
 * in another zone, or undefined when unreadable.
 */
export function documentDay(record: ReceivedRecord): string | undefined {
  return writtenDay(text(record, 'documentDate'));
}

/** `yyyy-MM-dd'T'HH:mm:ss'Z'` of the HTTP-date `receivedDate`, or the text as sent. */
export function receivedAt(record: ReceivedRecord): string {
  const raw = text(record, 'receivedDate');
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? raw : new Date(ms).toISOString().replace('.000Z', 'Z');
}

export interface ReceivedNames {
  /** `yyyy-mm` (or `undated`), the folder under outbox/received/<company>/. */
  month: string;
  /** `<documentNumber>_<short cufe>`. */
  stem: string;
  /** Paths relative to outbox/received/<company>/, with `/`. */
  json: string;
  pdf: string;
}

export function receivedNames(record: ReceivedRecord): ReceivedNames {
  const day = documentDay(record);
  const month = day === undefined ? 'undated' : day.slice(0, 7);
  const key = receivedKey(record).replace(/^sha256-/, '');
  const short = sanitizeName(key.slice(0, SHORT_CUFE_LENGTH));
  const number = text(record, 'documentNumber');
  const stem = sanitizeName(`${number === '' ? 'no-number' : number}_${short}`);
  return { month, stem, json: `${month}/${stem}.json`, pdf: `${month}/${stem}.pdf` };
}

export type PdfContent =
  { kind: 'none' } | { kind: 'pdf'; bytes: Buffer } | { kind: 'not-pdf'; reason: string };

/** Decodes `pdfDocument`: empty means no PDF; anything but base64 of a `%PDF-` file is reported, not written. */
export function decodePdf(record: ReceivedRecord): PdfContent {
  const value = record.pdfDocument;
  if (value === undefined || value === null || value === '') return { kind: 'none' };
  if (typeof value !== 'string')
    return { kind: 'not-pdf', reason: `pdfDocument is a ${typeof value}, not base64 text` };
  if (value.trim() === '') return { kind: 'none' };
  if (!BASE64.test(value.trim())) return { kind: 'not-pdf', reason: 'pdfDocument is not base64' };
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length < PDF_MAGIC.length || !bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    return { kind: 'not-pdf', reason: 'pdfDocument does not decode to a PDF (no %PDF- header)' };
  }
  return { kind: 'pdf', bytes };
}

/** The fields of the index row, as text, in the order of RECEIVED_INDEX_COLUMNS. */
export interface IndexFields {
  documentDate: string;
  documentNumber: string;
  providerIdentification: string;
  providerName: string;
  documentType: string;
  typeCode: string;
  currency: string;
  value: string;
  cufe: string;
  receivedDate: string;
  jsonFile: string;
  pdfFile: string;
  note: string;
}

/** Two decimals with a point: what an ERP import reads regardless of the spreadsheet's locale. */
export function formatValue(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return value.toFixed(2);
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value).toFixed(2);
  return typeof value === 'string' ? value : '';
}

/** Index cells stay on one line, so a torn last row is recognisable (received-index.ts). */
function oneLine(fields: IndexFields): IndexFields {
  const out = { ...fields };
  for (const key of Object.keys(out) as (keyof IndexFields)[])
    out[key] = out[key].replace(/[\r\n]+/g, ' ');
  return out;
}

export function indexFields(
  record: ReceivedRecord,
  names: ReceivedNames,
  pdfWritten: boolean,
  note: string,
): IndexFields {
  return oneLine({
    documentDate: documentDay(record) ?? text(record, 'documentDate'),
    documentNumber: text(record, 'documentNumber'),
    providerIdentification: text(record, 'providerIdentification'),
    providerName: text(record, 'providerName'),
    documentType: text(record, 'documentType'),
    typeCode: text(record, 'typeCode'),
    currency: text(record, 'documentCurrency'),
    value: formatValue(record.value),
    cufe: receivedKey(record),
    receivedDate: receivedAt(record),
    jsonFile: names.json,
    pdfFile: pdfWritten ? names.pdf : '',
    note,
  });
}
