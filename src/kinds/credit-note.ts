/**
 * `credit-note` (PRODUCT: E1, ReasonCredit required, else the service would issue an invoice), and a
 * reference to the corrected invoice.
 */
import { arr, filled } from '../validate/access.js';
import { KIND, linesGuard } from '../validate/guard-rules.js';
import { problem, type Problem } from '../validate/problem.js';
import type { KindDescriptor } from './descriptor.js';
import { E1_PARTS } from './e1.js';
import { KIND_LABELS } from './names.js';

function creditNoteGuard(r: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  if (!filled(r.ReasonCredit))
    out.push(
      problem(
        KIND,
        'ReasonCredit',
        'A credit note requires ReasonCredit (without it the service issues an invoice)',
      ),
    );
  const refs = arr(r.DocumentReferences);
  if (refs === undefined || refs.length === 0)
    out.push(
      problem(
        KIND,
        'DocumentReferences',
        'A credit note requires a DocumentReferences entry naming the corrected invoice',
      ),
    );
  return out;
}

export const CREDIT_NOTE: KindDescriptor = {
  ...E1_PARTS,
  name: 'credit-note',
  label: KIND_LABELS['credit-note'],
  guards: (r) => [...creditNoteGuard(r), ...linesGuard('credit-note', r)],
};
