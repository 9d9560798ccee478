/** `debit-note` (PRODUCT: E1, ReasonDebit required, ReasonCredit empty). */
import { filled } from '../validate/access.js';
import { KIND, linesGuard, present } from '../validate/guard-rules.js';
import { problem, type Problem } from '../validate/problem.js';
import type { KindDescriptor } from './descriptor.js';
import { E1_PARTS } from './e1.js';
import { KIND_LABELS } from './names.js';

function debitNoteGuard(r: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  if (!filled(r.ReasonDebit))
    out.push(
      problem(
        KIND,
        'ReasonDebit',
        'A debit note requires ReasonDebit (without it the service issues an invoice)',
      ),
    );
  if (present(r.ReasonCredit))
    out.push(
      problem(
        KIND,
        'ReasonCredit',
        'A debit note must have an empty ReasonCredit (the service would issue a credit note)',
      ),
    );
  return out;
}

export const DEBIT_NOTE: KindDescriptor = {
  ...E1_PARTS,
  name: 'debit-note',
  label: KIND_LABELS['debit-note'],
  guards: (r) => [...debitNoteGuard(r), ...linesGuard('debit-note', r)],
};
