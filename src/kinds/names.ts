/**
 * The names of the document kinds (PRODUCT's kinds table): each is an inbox and outbox folder name,
 * a `--kind` value, a config key under `kinds:` and the `kind` column of the ledger. This is the one
 * list of them; what each kind needs lives in its descriptor (registry.ts). Text becomes a
 * `DocumentKind` here, once, where it enters (a folder, a ledger row, the command line, a mapping).
 */
import { EdocError } from '../errors.js';
import { excerpt, quoted } from '../policy/excerpt.js';

export const DOCUMENT_KINDS = [
  'invoice',
  'credit-note',
  'debit-note',
  'payroll',
  'support-document',
  'support-adjustment',
  'pos',
] as const;

export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** How messages name one of each kind: `a credit note`. */
export const KIND_LABELS: Readonly<Record<DocumentKind, string>> = {
  invoice: 'an invoice',
  'credit-note': 'a credit note',
  'debit-note': 'a debit note',
  payroll: 'a payroll document',
  'support-document': 'a support document',
  'support-adjustment': 'a support adjustment note',
  pos: 'a POS document',
};

const NAMES: ReadonlySet<string> = new Set(DOCUMENT_KINDS);

export function isDocumentKind(value: unknown): value is DocumentKind {
  return typeof value === 'string' && NAMES.has(value);
}

/**
 * `text` as a kind, or an `EDOC_KIND_UNKNOWN` error naming where it came from
 * (`where`, e.g. `ledger file 12`) and the kinds there are.
 */
export function parseKind(text: string, where: string): DocumentKind {
  if (isDocumentKind(text)) return text;
  throw new EdocError(
    'EDOC_KIND_UNKNOWN',
    `${where}: ${quoted(text)} is not a document kind (one of ${DOCUMENT_KINDS.join(', ')})`,
    { value: excerpt(text) },
  );
}
