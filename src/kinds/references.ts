/**
 * The documents a note corrects, as its request names them (`DocumentReferences[].DocumentReferred`,
 * prefix and number written together: `SETP990000001`), and the kinds such a document may be in the
 * ledger. Credit and debit notes (E1) correct a document of the invoice family; a support adjustment
 * note (E6) corrects a support document. Other kinds reference nothing the ledger checks.
 */
import { arr, obj } from '../validate/access.js';
import { firstFilled } from './keys.js';
import type { DocumentKind } from './names.js';

const REFERENCED: Partial<Record<DocumentKind, readonly DocumentKind[]>> = {
  'credit-note': ['invoice', 'credit-note', 'debit-note'],
  'debit-note': ['invoice', 'credit-note', 'debit-note'],
  'support-adjustment': ['support-document'],
};

/** The kinds a document this note references may be stored as; [] for a kind that is not a note. */
export function referencedKinds(kind: DocumentKind): readonly DocumentKind[] {
  return REFERENCED[kind] ?? [];
}

/** The numbers (prefix and number together, as written) this note references; [] for other kinds. */
export function referencedNumbers(kind: DocumentKind, request: unknown): string[] {
  if (referencedKinds(kind).length === 0) return [];
  const out: string[] = [];
  for (const ref of arr(obj(request)?.DocumentReferences) ?? []) {
    const named = firstFilled(obj(ref)?.DocumentReferred);
    if (named !== undefined && named.length <= 60 && !out.includes(named)) out.push(named);
  }
  return out;
}

/**
 * The `prefix/number` forms a number written together may stand for: the number is the trailing digits,
 * split at any point (`SETP990000001`: `SETP/990000001`, `SETP9/90000001`, …), since a prefix may end in a digit.
 */
export function numberSplits(written: string): string[] {
  const digits = /\d+$/.exec(written)?.[0] ?? '';
  const out: string[] = [];
  for (let i = 0; i < digits.length; i++) {
    const at = written.length - digits.length + i;
    out.push(`${written.slice(0, at)}/${written.slice(at)}`);
  }
  return out;
}
