import { z } from 'zod';
import {
  amountSchema,
  dateSchema,
  dateTimeSchema,
  decimalStringSchema,
  documentReferenceSchema,
  identificationSchema,
  itemSchema,
  taxSubTotalSchema,
  taxTotalSchema,
} from './common.js';

/*
 * E1 request: invoice, credit note and debit note share one body. The spec does
 * not show which fields are required nor the allowed code values (OperationType,
 * Type, units, categories), so every field is optional and codes are free strings;
 * only formats and unknown keys are rejected here.
 */

export const invoicePartySchema = z.strictObject({
  Identification: identificationSchema.optional(),
});

export const invoiceCustomerPartySchema = z.strictObject({
  LegalType: z.string().optional(),
  Email: z.string().optional(),
  Identification: identificationSchema.optional(),
  Name: z.string().optional(),
});

export const paymentMeansSchema = z.strictObject({
  Code: z.string().optional(),
  Mean: z.string().optional(),
  DueDate: dateSchema.optional(),
});

export const invoiceLineSchema = z.strictObject({
  Number: z.string().optional(),
  Quantity: decimalStringSchema.optional(),
  QuantityUnitOfMeasure: z.string().optional(),
  TaxSubTotals: z.array(taxSubTotalSchema).optional(),
  TaxTotals: z.array(taxTotalSchema).optional(),
  UnitPrice: amountSchema.optional(),
  GrossAmount: amountSchema.optional(),
  NetAmount: amountSchema.optional(),
  Item: itemSchema.optional(),
});
export type InvoiceLine = z.infer<typeof invoiceLineSchema>;

export const invoiceTotalSchema = z.strictObject({
  GrossAmount: amountSchema.optional(),
  TotalBillableAmount: amountSchema.optional(),
  PayableAmount: amountSchema.optional(),
  TaxableAmount: amountSchema.optional(),
});

export const invoiceRequestSchema = z.strictObject({
  Currency: z.string().optional(),
  SeriePrefix: z.string().optional(),
  SerieNumber: z.string().optional(),
  IssueDate: dateTimeSchema.optional(),
  DueDate: dateTimeSchema.optional(),
  DeliveryDate: dateTimeSchema.optional(),
  CorrelationDocumentId: z.string().optional(),
  SerieExternalKey: z.string().optional(),
  ReasonCredit: z.string().optional(),
  ReasonDebit: z.string().optional(),
  OperationType: z.string().optional(),
  IssuerParty: invoicePartySchema.optional(),
  CustomerParty: invoiceCustomerPartySchema.optional(),
  PaymentMeans: z.array(paymentMeansSchema).optional(),
  Lines: z.array(invoiceLineSchema).optional(),
  TaxSubTotals: z.array(taxSubTotalSchema).optional(),
  TaxTotals: z.array(taxTotalSchema).optional(),
  Total: invoiceTotalSchema.optional(),
  DocumentReferences: z.array(documentReferenceSchema).optional(),
});
export type InvoiceRequest = z.infer<typeof invoiceRequestSchema>;

/** E1 infers the document type: ReasonCredit with a value, else ReasonDebit with a value, else invoice. */
export function e1DocumentType(
  request: Pick<InvoiceRequest, 'ReasonCredit' | 'ReasonDebit'>,
): 'invoice' | 'credit-note' | 'debit-note' {
  if (request.ReasonCredit !== undefined && request.ReasonCredit.trim() !== '')
    return 'credit-note';
  if (request.ReasonDebit !== undefined && request.ReasonDebit.trim() !== '') return 'debit-note';
  return 'invoice';
}
