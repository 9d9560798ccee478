/**
 * One descriptor per document kind (PRODUCT's kinds table). Ask `kindOf(kind)` what a kind needs;
 * `KINDS` lists the descriptors in the table's order.
 */
import { CREDIT_NOTE } from './credit-note.js';
import { DEBIT_NOTE } from './debit-note.js';
import type { KindDescriptor } from './descriptor.js';
import { INVOICE } from './invoice.js';
import { DOCUMENT_KINDS, type DocumentKind } from './names.js';
import { PAYROLL } from './payroll.js';
import { POS } from './pos.js';
import { SUPPORT_ADJUSTMENT } from './support-adjustment.js';
import { SUPPORT_DOCUMENT } from './support-document.js';

/** Typed by kind name, so a kind added to DOCUMENT_KINDS without a descriptor does not compile. */
const DESCRIPTORS: Readonly<Record<DocumentKind, KindDescriptor>> = {
  invoice: INVOICE,
  'credit-note': CREDIT_NOTE,
  'debit-note': DEBIT_NOTE,
  payroll: PAYROLL,
  'support-document': SUPPORT_DOCUMENT,
  'support-adjustment': SUPPORT_ADJUSTMENT,
  pos: POS,
};

export const KINDS: readonly KindDescriptor[] = DOCUMENT_KINDS.map((kind) => DESCRIPTORS[kind]);

export function kindOf(kind: DocumentKind): KindDescriptor {
  return DESCRIPTORS[kind];
}

/**
 * The kinds whose numbers share one sequence at the service with `kind` (the authority's rule 90 is per
 * company + family + prefix + number): invoices, credit and debit notes all go through E1 and share one.
 */
export function kindsSharingNumbers(kind: DocumentKind): readonly DocumentKind[] {
  const family = DESCRIPTORS[kind].numbering;
  return DOCUMENT_KINDS.filter((k) => DESCRIPTORS[k].numbering === family);
}
