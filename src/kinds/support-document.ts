/**
 * `support-document` (PRODUCT: E5): a purchase from a supplier not obliged to invoice. At least one
 * line; the support totals and the support-document rules (validate/support-rules.ts) apply.
 */
import {
  supportDocumentRequestSchema,
  type SupportDocumentRequest,
} from '../service/schemas/support-document.js';
import { linesGuard } from '../validate/guard-rules.js';
import { supportRules } from '../validate/support-rules.js';
import { supportTotals } from '../validate/totals.js';
import type { KindDescriptor } from './descriptor.js';
import { partyIdentification } from './customer.js';
import { seriesKey, seriesPrefix } from './keys.js';
import { KIND_LABELS } from './names.js';

export const SUPPORT_DOCUMENT: KindDescriptor = {
  name: 'support-document',
  label: KIND_LABELS['support-document'],
  endpoint: 'E5',
  numbering: 'support-document',
  bodyIsRequest: true,
  send: (client, company, request, ctx) =>
    client.issueSupportDocument(company, request as SupportDocumentRequest, ctx.options),
  schema: () => supportDocumentRequestSchema,
  key: seriesKey,
  numberPath: 'SerieNumber',
  prefix: seriesPrefix,
  // the spec accepts CustomerParty as an equivalent of SupplierParty
  customer: (request) => partyIdentification(request, 'SupplierParty', 'CustomerParty'),
  guards: (r) => linesGuard('support-document', r),
  totals: supportTotals,
  rules: supportRules,
};
