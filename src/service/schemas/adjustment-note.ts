import { z } from 'zod';
import {
  dateOrDateTimeSchema,
  dateTimeSchema,
  evenWithFieldIssues,
  taxSubTotalSchema,
  taxTotalSchema,
} from './common.js';
import { paymentMeansSchema } from './invoice.js';
import { supportLineSchema, supportPartySchema, supportTotalSchema } from './support-document.js';

/*
 * E6 request: adjustment note on a support document. Without Lines the referenced
 * document is annulled with its own detail; with Lines, SupplierParty and Total
 * become required. The spec gives no format for a reference's IssueDate, so both
 * date forms of the spec are accepted; PaymentMeans reuses the E1 entry shape and
 * WithholdingTaxTotals the tax subtotal shape (their structure is not shown).
 */

export const adjustmentNoteReferenceSchema = z
  .strictObject({
    DocumentReferred: z.string().optional(),
    DocumentReferredCUFE: z.string().optional(),
    IssueDate: dateOrDateTimeSchema.optional(),
  })
  .superRefine((ref, ctx) => {
    const missing = (v: unknown): boolean =>
      v === undefined || (typeof v === 'string' && v.trim() === '');
    if (missing(ref.DocumentReferred) && missing(ref.DocumentReferredCUFE)) {
      ctx.addIssue({
        code: 'custom',
        message: 'at least one of DocumentReferred or DocumentReferredCUFE is required',
        path: ['DocumentReferred'],
      });
    }
  }, evenWithFieldIssues);
export type AdjustmentNoteReference = z.infer<typeof adjustmentNoteReferenceSchema>;

export const adjustmentNoteRequestSchema = z
  .strictObject({
    DocumentReferences: z
      .array(adjustmentNoteReferenceSchema)
      .min(1, 'at least one document reference is required'),
    CorrectionConceptCode: z.string().optional(),
    CorrectionConcept: z.string().optional(),
    Currency: z.literal('COP', 'only COP is admitted for adjustment notes').optional(),
    SeriePrefix: z.string().optional(),
    SerieNumber: z.string().optional(),
    IssueDate: dateTimeSchema.optional(),
    Notes: z.array(z.string()).optional(),
    PaymentMeans: z.array(paymentMeansSchema).optional(),
    SupplierParty: supportPartySchema.optional(),
    Lines: z.array(supportLineSchema).optional(),
    TaxSubTotals: z.array(taxSubTotalSchema).optional(),
    TaxTotals: z.array(taxTotalSchema).optional(),
    WithholdingTaxTotals: z.array(taxSubTotalSchema).optional(),
    Total: supportTotalSchema.optional(),
  })
  .superRefine((note, ctx) => {
    if (note.Lines === undefined) return;
    if (note.SupplierParty === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'SupplierParty is required when Lines are sent',
        path: ['SupplierParty'],
      });
    }
    if (note.Total === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'Total is required when Lines are sent',
        path: ['Total'],
      });
    }
  }, evenWithFieldIssues);
export type AdjustmentNoteRequest = z.infer<typeof adjustmentNoteRequestSchema>;
