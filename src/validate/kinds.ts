/** The document kinds of the inbox folders (PRODUCT's kinds table). */
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

export function isDocumentKind(value: unknown): value is DocumentKind {
  return typeof value === 'string' && (DOCUMENT_KINDS as readonly string[]).includes(value);
}
