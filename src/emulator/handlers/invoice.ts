/**
 * E1: invoice, credit note or debit note in one route. The type is inferred
 * (ReasonCredit → credit note, else ReasonDebit → debit note, else invoice);
 * the number comes from the body or from the company's current range.
 * Everything answers HTTP 200 except an uncontrolled error (a fault).
 */
import { e1DocumentType, invoiceRequestSchema } from '../../service/schemas/invoice.js';
import { checkDigits } from '../../validate/check-digit.js';
import { invoiceTotals } from '../../validate/totals.js';
import { authenticate, unauthorizedReply } from '../auth.js';
import {
  envelopeReply,
  issueMessages,
  parseJson,
  type EmulatorRequest,
  type Reply,
} from '../http.js';
import { issueDocument } from '../issue.js';
import { assignNumber } from '../numbering.js';
import type { EmulatorState } from '../state.js';

export const OK_MESSAGE = 'Procesado Correctamente.';
export const REJECTED_MESSAGE = 'Documento rechazado por la autoridad.';
const PROCESSING_ERROR = 'Error procesando el documento.';

function controlledError(errors: string[]): Reply {
  return envelopeReply(200, 500, false, PROCESSING_ERROR, errors);
}

export function handleInvoice(state: EmulatorState, req: EmulatorRequest): Reply {
  const auth = authenticate(state, req.headers);
  if (!auth.ok) return unauthorizedReply(auth.companyText);
  const company = auth.company;
  const json = parseJson(req.text);
  if (!json.ok) return controlledError([json.message]);
  const parsed = invoiceRequestSchema.safeParse(json.value);
  if (!parsed.success) return controlledError(issueMessages(parsed.error.issues));
  const request = parsed.data;
  const kind = e1DocumentType(request);

  const warnings: string[] = [];
  let prefix = request.SeriePrefix?.trim() ?? '';
  let number = request.SerieNumber?.trim() ?? '';
  if (number === '') {
    const assigned = assignNumber(state, company, kind, prefix === '' ? undefined : prefix);
    if (assigned === undefined) {
      return controlledError([
        `No hay un rango de numeración vigente${prefix === '' ? '' : ` para el prefijo ${prefix}`} de la empresa ${company.id}.`,
      ]);
    }
    prefix = assigned.prefix;
    number = assigned.number;
    warnings.push(assigned.warning);
  }

  const references = request.DocumentReferences ?? [];
  const hasReference = references.some(
    (r) => (r.DocumentReferred ?? '').trim() !== '' || (r.DocumentReferredCUFE ?? '').trim() !== '',
  );
  const doc = issueDocument(
    state,
    {
      company,
      kind,
      prefix,
      number,
      totals: invoiceTotals(request),
      checkDigits: checkDigits(request),
      missingReference: kind !== 'invoice' && !hasReference,
    },
    { ...request, SeriePrefix: prefix, SerieNumber: number },
    true,
  );
  if (doc.accepted) return envelopeReply(200, 200, true, OK_MESSAGE, [], warnings);
  return envelopeReply(200, 200, false, REJECTED_MESSAGE, doc.reasons, warnings);
}
