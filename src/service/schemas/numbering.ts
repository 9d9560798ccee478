import { z } from 'zod';
import {
  dateOrDateTimeSchema,
  dateSchema,
  dateTimeSchema,
  evenWithFieldIssues,
  isValidDateTime,
} from './common.js';

export const NUMBERING_DOCUMENT_TYPES = [
  'Invoice',
  'CreditNote',
  'DebitNote',
  'ContingencyInvoice',
  'SupportDocument',
  'Pos',
] as const;

export const numberingDocumentTypeSchema = z.enum(NUMBERING_DOCUMENT_TYPES);
export type NumberingDocumentType = z.infer<typeof numberingDocumentTypeSchema>;

/**
 * Numbering range as answered by E10 (list) and E11 (create). Read tolerantly:
 * unknown keys kept; ValidDateFrom/To come as yyyy-MM-dd in the list and as
 * yyyy-MM-ddTHH:mm:ss in the create response; the list may answer a ValidDateTo
 * earlier than ValidDateFrom, so their order is not checked.
 */
export const numberingRangeSchema = z.looseObject({
  FromNumber: z.string(),
  ToNumber: z.string(),
  Prefix: z.string(),
  ResolutionNumber: z.string(),
  ResolutionDate: dateSchema.nullable(),
  ResolutionType: z.string().nullable(),
  TechnicalKey: z.string().nullable(),
  ValidDateFrom: dateOrDateTimeSchema,
  ValidDateTo: dateOrDateTimeSchema,
});
export type NumberingRange = z.infer<typeof numberingRangeSchema>;

/**
 * E11 body. Required fields and the date format are the spec's validations 1–2;
 * StartValue ≤ EndValue and ValidFrom ≤ ValidTo are validations 3–4 (the
 * fixed-width date form compares correctly as text).
 */
export const createNumberingRequestSchema = z
  .strictObject({
    Prefix: z.string(),
    AuthorizationNumber: z.string(),
    ValidFrom: dateTimeSchema,
    ValidTo: dateTimeSchema,
    StartValue: z.number().int(),
    EndValue: z.number().int(),
    DocumentType: numberingDocumentTypeSchema,
    Nit: z.string().optional(),
    EfectiveValue: z.number().int().optional(),
    Name: z.string().optional(),
    AutoIncrement: z.boolean().optional(),
  })
  .superRefine((req, ctx) => {
    // Runs even when fields failed their own checks (messages accumulate): compare only sound values.
    if (
      Number.isInteger(req.StartValue) &&
      Number.isInteger(req.EndValue) &&
      req.StartValue > req.EndValue
    ) {
      ctx.addIssue({
        code: 'custom',
        message: 'StartValue must not be greater than EndValue',
        path: ['StartValue'],
      });
    }
    if (
      isValidDateTime(String(req.ValidFrom)) &&
      isValidDateTime(String(req.ValidTo)) &&
      req.ValidFrom > req.ValidTo
    ) {
      ctx.addIssue({
        code: 'custom',
        message: 'ValidFrom must not be later than ValidTo',
        path: ['ValidFrom'],
      });
    }
  }, evenWithFieldIssues);
export type CreateNumberingRequest = z.infer<typeof createNumberingRequestSchema>;
