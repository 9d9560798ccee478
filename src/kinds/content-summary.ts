/**
 * What the ledger keeps of a document's content to tell, later, whether a document carrying a number
 * already issued is the one issued or a corrected copy: a digest of its request (the text `JSON.stringify`
 * makes of it, so blanks and number forms of the input do not count, nor the fields an ERP writes anew at
 * each export) and the few facts an accountant
 * compares — payable amount, customer identification, line count and issue date — to say what differs. Small on
 * purpose: it is stored with every document; the request itself stays in the ledger's bodies.
 */
import { hash } from 'node:crypto';
import { arr, obj } from '../validate/access.js';
import { firstFilled } from './keys.js';
import { posNoteOf } from './pos.js';
import { kindOf } from './registry.js';
import type { DocumentKind } from './names.js';

export interface ContentSummary {
  /** SHA-256 (hex, first 32 digits) of `JSON.stringify(request)`. */
  digest: string;
  payable?: string;
  customer?: string;
  lines?: number;
  issueDate?: string;
  /** A POS adjustment note (its `documentosAfectados` names the sale): corrected by another note, not by one naming it. */
  note?: true;
}

/** The facts compared, in the order a report names them, with the words it uses. */
const FACTS: readonly { key: Exclude<keyof ContentSummary, 'digest'>; label: string }[] = [
  { key: 'payable', label: 'payable amount' },
  { key: 'customer', label: 'customer identification' },
  { key: 'lines', label: 'line count' },
  { key: 'issueDate', label: 'issue date' },
];

function scalar(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return firstFilled(value);
}

/**
 * Fields an ERP writes anew at each export of the same document, left out of the digest so an unchanged
 * re-export stays the same content: its own correlation id (E1), a payroll's generation time. Matched on
 * `JSON.stringify`'s text, where a name followed by `":"` cannot occur inside a string value (quotes in
 * values are escaped there).
 */
const EXPORT_NOISE =
  /"(?:CorrelationDocumentId|FechaHoraGen|FechaGen)":(?:"(?:[^"\\]|\\.)*"|null|-?[\d.eE+-]+),?/g;

/** The summary of a request (`text`: its `JSON.stringify`, when the caller made it already). */
export function contentSummary(
  kind: DocumentKind,
  request: unknown,
  text?: string,
): ContentSummary {
  const r = obj(request);
  // crypto.hash, one call: a Hash object per document cost more than the digest itself (50,000 documents: 0.65 s)
  const full = text ?? JSON.stringify(request);
  // most requests carry none of those fields: two plain searches cost less than the pattern's scan
  const digest = hash(
    'sha256',
    full.includes('Gen"') || full.includes('CorrelationDocumentId"')
      ? full.replace(EXPORT_NOISE, '')
      : full,
    'hex',
  ).slice(0, 32);
  const out: ContentSummary = { digest };
  // E1, E5, E6: Total.PayableAmount; payroll: ComprobanteTotal; POS content: totales.valorNeto
  const payable =
    scalar(obj(r?.Total)?.PayableAmount) ??
    scalar(r?.ComprobanteTotal) ??
    scalar(obj(r?.totales)?.valorNeto);
  if (payable !== undefined) out.payable = payable;
  const customer = kindOf(kind).customer(request);
  if (customer !== undefined) out.customer = customer;
  const lines = arr(r?.Lines) ?? arr(r?.detalles);
  if (lines !== undefined) out.lines = lines.length;
  const issueDate = scalar(r?.IssueDate) ?? scalar(obj(r?.documento)?.fechaEmision);
  if (issueDate !== undefined) out.issueDate = issueDate;
  if (kind === 'pos' && posNoteOf(request) !== undefined) out.note = true;
  return out;
}

/** A stored summary (JSON text), or undefined when there is none or it cannot be read. */
export function parseSummary(text: string | null | undefined): ContentSummary | undefined {
  if (text === null || text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return obj(v) !== undefined && typeof (v as ContentSummary).digest === 'string'
      ? (v as ContentSummary)
      : undefined;
  } catch {
    return undefined;
  }
}

export interface ContentDifference {
  label: string;
  issued: string;
  now: string;
}

/** What differs between the issued content and the file's, fact by fact ([] when only the digest does). */
export function contentDifferences(
  issued: ContentSummary,
  now: ContentSummary,
): ContentDifference[] {
  const out: ContentDifference[] = [];
  for (const { key, label } of FACTS) {
    const a = issued[key];
    const b = now[key];
    if (a === b) continue;
    out.push({
      label,
      issued: a === undefined ? '(none)' : String(a),
      now: b === undefined ? '(none)' : String(b),
    });
  }
  return out;
}

/**
 * The correction the authority expects for a document issued with other content, by numbering family.
 * A note is not corrected by a note referencing it: notes reference the document they correct, so a
 * credit note that credited too little is completed by another credit note, and one that credited too
 * much is offset by a debit note, both referencing the invoice (the advice for an invoice, applied to a
 * note, would charge the customer where the accountant meant to credit them).
 */
export function correctionAdvice(kind: DocumentKind, number: string, note = false): string {
  if (kind === 'pos' && note)
    return `issue another POS adjustment note referencing the sale ${number} corrected (nota-ajuste-credito for credit still missing or a charge made in excess, nota-ajuste-debito for a charge still missing or credit given in excess; a note references a sale, never another note)`;
  switch (kind) {
    case 'credit-note':
      return `issue another credit note for the credit still missing, or a debit note for the credit given in excess, referencing the invoice ${number} corrected (a note references an invoice, never another note)`;
    case 'debit-note':
      return `issue another debit note for the charge still missing, or a credit note for the charge made in excess, referencing the invoice ${number} corrected (a note references an invoice, never another note)`;
    case 'support-adjustment':
      return `issue another support adjustment note referencing the support document ${number} corrected`;
    default:
      break;
  }
  switch (kindOf(kind).numbering) {
    case 'invoice':
      return `issue a credit note (a lower amount, or to annul it) or a debit note (a higher amount) referencing ${number}`;
    case 'support-document':
    case 'support-adjustment':
      return `issue a support adjustment note referencing ${number}`;
    case 'payroll':
      return `issue a payroll adjustment note (TipoNota 1) replacing ${number}`;
    case 'pos':
      return `issue a POS adjustment note (nota-ajuste) referencing ${number}`;
  }
}

/**
 * The message of EDOC_ISSUED_OTHER_CONTENT: the number, where it was issued from, what differs, and what
 * to do. `differences` empty: the facts compared agree and something else in the request differs.
 */
export function otherContentMessage(
  kind: DocumentKind,
  number: string,
  issuedFrom: string,
  differences: readonly ContentDifference[],
  note = false,
): string {
  const what =
    differences.length === 0
      ? 'payable amount, customer identification, line count and issue date agree; other fields differ, such as a name, an address or a description'
      : differences
          .map((d) => `${d.label}: issued ${d.issued}, the file now says ${d.now}`)
          .join('; ');
  return (
    `${number} was issued (accepted from ${issuedFrom}) with other content than this file holds (${what}). ` +
    `Not sent: the number is issued and the service keeps what it issued. To correct it, ${correctionAdvice(kind, number, note)}.`
  );
}
