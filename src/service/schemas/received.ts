import { z } from 'zod';

/*
 * E12 answer, read tolerantly (unknown keys kept). Dates here are HTTP-date style
 * timestamps and `event` labels are not enumerated by the spec, so they stay strings.
 */
export const receivedDocumentSchema = z.looseObject({
  cufe: z.string(),
  documentId: z.string(),
  documentCurrency: z.string(),
  documentDate: z.string(),
  documentNumber: z.string(),
  documentType: z.string(),
  typeCode: z.string(),
  event: z.string().nullable(),
  issueTime: z.string(),
  nit: z.string(),
  providerIdentification: z.string(),
  providerName: z.string(),
  providerTaxSchemaId: z.string(),
  taxSchemaId: z.string(),
  paymentMeans: z.string(),
  paymentMeansCode: z.string().nullable(),
  paymentMeansDescription: z.string().nullable(),
  receiptService: z.string().nullable(),
  receivedDate: z.string(),
  value: z.number(),
  pdfDocument: z.string(),
});
export type ReceivedDocument = z.infer<typeof receivedDocumentSchema>;

export const receivedPageSchema = z.looseObject({
  data: z.array(receivedDocumentSchema),
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  total_pages: z.number().int(),
});
export type ReceivedPage = z.infer<typeof receivedPageSchema>;
