import { z } from 'zod';
import {
  amountSchema,
  dateSchema,
  dateTimeSchema,
  decimalStringSchema,
  identificationSchema,
  itemSchema,
  taxSubTotalSchema,
  taxTotalSchema,
} from './common.js';

/*
 * E5 request. The spec does not show which line and party fields are required
 * (missing data are completed from the registered provider, rule 1), so all are
 * optional; the tax rules 2–7 are business rules in validate/support-rules.ts.
 */

export const addressSchema = z.strictObject({
  DepartmentCode: z.string().optional(),
  CityCode: z.string().optional(),
  AddressLine: z.string().optional(),
  Country: z.string().optional(),
  PostalCode: z.string().optional(),
});

export const supportPartySchema = z.strictObject({
  LegalType: z.string().optional(),
  Email: z.string().optional(),
  TaxScheme: z.string().optional(),
  ResponsabilityTypes: z.array(z.string()).optional(),
  Identification: identificationSchema.optional(),
  Name: z.string().optional(),
  Address: addressSchema.optional(),
});
export type SupportParty = z.infer<typeof supportPartySchema>;

export const supportLineSchema = z.strictObject({
  Number: z.string().optional(),
  Quantity: decimalStringSchema.optional(),
  QuantityUnitOfMeasure: z.string().optional(),
  OperationType: z.string().optional(),
  PeriodStartDate: dateSchema.optional(),
  UnitPrice: amountSchema.optional(),
  NetAmount: amountSchema.optional(),
  Item: itemSchema.optional(),
  TaxSubTotals: z.array(taxSubTotalSchema).optional(),
  WithholdingTaxSubTotals: z.array(taxSubTotalSchema).optional(),
});
export type SupportLine = z.infer<typeof supportLineSchema>;

export const supportTotalSchema = z.strictObject({
  TaxableAmount: amountSchema.optional(),
  TaxAmount: amountSchema.optional(),
  PayableAmount: amountSchema.optional(),
  WithholdingTaxAmount: amountSchema.optional(),
});
export type SupportTotal = z.infer<typeof supportTotalSchema>;

export const supportDocumentRequestSchema = z.strictObject({
  Currency: z.string().optional(),
  SeriePrefix: z.string().optional(),
  SerieNumber: z.string().optional(),
  IssueDate: dateTimeSchema.optional(),
  SupplierParty: supportPartySchema.optional(),
  // The spec accepts CustomerParty as an equivalent of SupplierParty.
  CustomerParty: supportPartySchema.optional(),
  Lines: z.array(supportLineSchema).optional(),
  TaxTotals: z.array(taxTotalSchema).optional(),
  Total: supportTotalSchema.optional(),
});
export type SupportDocumentRequest = z.infer<typeof supportDocumentRequestSchema>;
