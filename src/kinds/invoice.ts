/**
 * `invoice` (PRODUCT: E1, must not carry ReasonCredit / ReasonDebit). E1 infers the document type
 * from those reasons, so a stray reason would silently issue a note instead of an invoice.
 */
import { KIND, linesGuard, present } from '../validate/guard-rules.js';
import { problem, type Problem } from '../validate/problem.js';
import type { KindDescriptor } from './descriptor.js';
import { E1_PARTS } from './e1.js';
import { KIND_LABELS } from './names.js';

function invoiceGuard(r: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  if (present(r.ReasonCredit))
    out.push(
      problem(
        KIND,
        'ReasonCredit',
        'An invoice must not carry ReasonCredit (the service would issue a credit note)',
      ),
    );
  if (present(r.ReasonDebit))
    out.push(
      problem(
        KIND,
        'ReasonDebit',
        'An invoice must not carry ReasonDebit (the service would issue a debit note)',
      ),
    );
  return out;
}

export const INVOICE: KindDescriptor = {
  ...E1_PARTS,
  name: 'invoice',
  label: KIND_LABELS['invoice'],
  guards: (r) => [...invoiceGuard(r), ...linesGuard('invoice', r)],
};
