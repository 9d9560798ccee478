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

/**
 * The kinds whose numbers share one sequence at the service with `kind` (the authority's rule 90 is per
 * company + family + prefix + number): invoices, credit and debit notes all go through E1 and share one.
 */
export function kindsSharingNumbers(kind: string): readonly DocumentKind[] {
  const e1: readonly DocumentKind[] = ['invoice', 'credit-note', 'debit-note'];
  if ((e1 as readonly string[]).includes(kind)) return e1;
  return isDocumentKind(kind) ? [kind] : [];
}
