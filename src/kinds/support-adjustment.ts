/**
 * `support-adjustment` (PRODUCT: E6): an adjustment note to a support document. It names the
 * corrected document, admits only COP, and when it sends Lines (adjust, not annul) it needs
 * SupplierParty and Total; without Lines it annuls the whole referenced document, so it may name no
 * correction concept other than annulment (`2`). The support totals and the support-document rules apply.
 */
import {
  adjustmentNoteRequestSchema,
  type AdjustmentNoteRequest,
} from '../service/schemas/adjustment-note.js';
import { excerpt } from '../policy/excerpt.js';
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
  } else {
    out.push(...annulmentConcept(r));
  }
  return out;
}

/**
 * Without Lines the service annuls the referenced document with its whole detail (E6 behaviour 2),
 * whatever concept the note names: a partial return (`1`), a discount (`3`) or a price correction
 * (`4`) sent without its lines would reverse the whole purchase. Blank or `2` (the default,
 * annulment) is an annulment; any other concept needs the lines it adjusts.
 */
function annulmentConcept(r: Record<string, unknown>): Problem[] {
  const code = r.CorrectionConceptCode;
  const written =
    code === undefined || code === null
      ? ''
      : typeof code === 'string'
        ? code.trim()
        : JSON.stringify(code);
  if (written === '') return unnamedConcept(r.CorrectionConcept);
  if (written === '2') return [];
  return [
    problem(
      KIND,
      'CorrectionConceptCode',
      `A note without Lines annuls the whole referenced document, but CorrectionConceptCode is ${JSON.stringify(code)}, not 2 (annulment); it is not sent: add the lines the note adjusts, or make it an annulment`,
    ),
  ];
}

/**
 * No code, so the service takes its default, `2` (annulment): a concept text that does not say
 * annulment (`Rebaja o descuento parcial`, `Devolución parcial`) is a note meant as a partial
 * correction whose lines and code were left out, and sent it would annul the whole document.
 */
function unnamedConcept(concept: unknown): Problem[] {
  const text = typeof concept === 'string' ? concept.trim() : '';
  if (text === '' || /anula/i.test(text)) return [];
  return [
    problem(
      KIND,
      'CorrectionConcept',
      `A note without Lines and without CorrectionConceptCode annuls the whole referenced document (code 2), but its CorrectionConcept ${JSON.stringify(excerpt(text))} does not say annulment; it is not sent: add the lines and the code the note adjusts, or write the code 2 (annulment)`,
    ),
  ];
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
  numberPath: 'SerieNumber',
  prefix: seriesPrefix,
  customer: (request) => partyIdentification(request, 'SupplierParty'),
  guards: supportAdjustmentGuard,
  totals: supportTotals,
  rules: supportRules,
};
