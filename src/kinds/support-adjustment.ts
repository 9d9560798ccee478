/**
 * `support-adjustment` (PRODUCT: E6): an adjustment note to a support document. It names the
 * corrected document, admits only COP, and when it sends Lines (adjust, not annul) it needs
 * SupplierParty and Total. The support totals and the support-document rules apply.
 */
import {
  adjustmentNoteRequestSchema,
  type AdjustmentNoteRequest,
} from '../service/schemas/adjustment-note.js';
import { arr, filled, isObj, str } from '../validate/access.js';
import { KIND } from '../validate/guard-rules.js';
import { joinPath, problem, type Problem } from '../validate/problem.js';
import { supportRules } from '../validate/support-rules.js';
import { supportTotals } from '../validate/totals.js';
import type { KindDescriptor } from './descriptor.js';
import { partyIdentification } from './customer.js';
import { seriesKey, seriesPrefix } from './keys.js';
import { KIND_LABELS } from './names.js';

function supportAdjustmentGuard(r: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  const refs = arr(r.DocumentReferences);
  if (refs === undefined || refs.length === 0) {
    out.push(
      problem(
        KIND,
        'DocumentReferences',
        'A support adjustment note requires DocumentReferences naming the corrected support document',
      ),
    );
  } else {
    refs.forEach((ref, i) => {
      if (!isObj(ref) || (!filled(ref.DocumentReferred) && !filled(ref.DocumentReferredCUFE))) {
        out.push(
          problem(
            KIND,
            joinPath('DocumentReferences', i, 'DocumentReferred'),
            'A document reference needs DocumentReferred or DocumentReferredCUFE',
          ),
        );
      }
    });
  }
  const currency = str(r.Currency);
  if (r.Currency !== undefined && r.Currency !== null && currency !== 'COP') {
    out.push(
      problem(
        KIND,
        'Currency',
        `An adjustment note admits only currency COP, not ${JSON.stringify(r.Currency)}`,
      ),
    );
  }
  // Sending Lines at all (even an empty list) means "adjust with this detail", not "annul".
  if (arr(r.Lines) !== undefined) {
    if (!isObj(r.SupplierParty))
      out.push(problem(KIND, 'SupplierParty', 'SupplierParty is required when Lines are sent'));
    if (!isObj(r.Total)) out.push(problem(KIND, 'Total', 'Total is required when Lines are sent'));
  }
  return out;
}

export const SUPPORT_ADJUSTMENT: KindDescriptor = {
  name: 'support-adjustment',
  label: KIND_LABELS['support-adjustment'],
  endpoint: 'E6',
  numbering: 'support-adjustment',
  bodyIsRequest: true,
  send: (client, company, request, ctx) =>
    client.issueAdjustmentNote(company, request as AdjustmentNoteRequest, ctx.options),
  schema: () => adjustmentNoteRequestSchema,
  key: seriesKey,
  prefix: seriesPrefix,
  customer: (request) => partyIdentification(request, 'SupplierParty'),
  guards: supportAdjustmentGuard,
  totals: supportTotals,
  rules: supportRules,
};
