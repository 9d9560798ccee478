/**
 * What invoices, credit notes and debit notes share (invoice.ts, credit-note.ts, debit-note.ts): one
 * operation, E1, which tells them apart by `ReasonCredit` / `ReasonDebit` alone; one schema, one key,
 * one numbering family, the issuer in `IssuerParty` and the invoice totals rule.
 */
import { invoiceRequestSchema, type InvoiceRequest } from '../service/schemas/invoice.js';
import { e1DateRules } from '../validate/e1-dates.js';
import { invoiceTotals } from '../validate/totals.js';
import { type KindDescriptor } from './descriptor.js';
import { partyIdentification } from './customer.js';
import { seriesKey, seriesPrefix } from './keys.js';

export const E1_PARTS = {
  endpoint: 'E1',
  numbering: 'invoice',
  bodyIsRequest: true,
  send: (client, company, request, ctx) =>
    client.issueInvoice(company, request as InvoiceRequest, ctx.options),
  schema: () => invoiceRequestSchema,
  key: seriesKey,
  numberPath: 'SerieNumber',
  prefix: seriesPrefix,
  issuerPath: 'IssuerParty.Identification.DocumentNumber',
  customer: (request) => partyIdentification(request, 'CustomerParty'),
  totals: invoiceTotals,
  rules: e1DateRules,
} satisfies Omit<KindDescriptor, 'name' | 'label' | 'guards'>;
