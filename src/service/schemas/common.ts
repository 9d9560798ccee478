import { z } from 'zod';

/*
 * Building blocks shared by the wire schemas. Request parts are strict objects
 * (a typo such as `SeriePrefx` is reported with its path); response parts are
 * loose (unknown keys kept) because the service may add fields.
 */

/** Non-negative amount with exactly two decimals, e.g. "1234.50". The spec shows no negative amounts. */
export const amountSchema = z
  .string()
  .regex(
    /^(0|[1-9]\d*)\.\d{2}$/,
    'must be a non-negative amount with exactly two decimals, e.g. "1234.50"',
  );

/** Percentage as a two-decimal string ("19.00", "2.50"), the form of the reference sample. */
export const percentageSchema = z
  .string()
  .regex(/^(0|[1-9]\d*)\.\d{2}$/, 'must be a percentage with exactly two decimals, e.g. "19.00"');

/** Non-negative decimal string with any number of decimals (quantities, days, hours). */
export const decimalStringSchema = z
  .string()
  .regex(
    /^(0|[1-9]\d*)(\.\d+)?$/,
    'must be a non-negative number written as a string, e.g. "2" or "1.5"',
  );

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

/*
 * The date forms are read character by character, not matched with a regular expression: every
 * document carries several dates, and the match with its six numbers was a visible part of the intake
 * worker's validation.
 */

/** The number the `count` ASCII digits of `value` from `at` write; -1 when one of them is no digit. */
function digitsAt(value: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/** `yyyy-MM-dd` at the start of `value`, a real calendar date. */
function isDateAtStart(value: string): boolean {
  if (value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return false; // '-'
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  return year >= 0 && month >= 0 && day >= 0 && isCalendarDate(year, month, day);
}

/** True for a real calendar date written yyyy-MM-dd. */
export function isValidDate(value: string): boolean {
  return value.length === 10 && isDateAtStart(value);
}

/** True for a real calendar date and time written yyyy-MM-ddTHH:mm:ss (no zone, no fraction). */
export function isValidDateTime(value: string): boolean {
  // 'T', ':', ':'
  if (value.length !== 19 || value.charCodeAt(10) !== 84) return false;
  if (value.charCodeAt(13) !== 58 || value.charCodeAt(16) !== 58) return false;
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  return (
    isDateAtStart(value) &&
    hour >= 0 &&
    hour <= 23 &&
    minute >= 0 &&
    minute <= 59 &&
    second >= 0 &&
    second <= 59
  );
}

/** yyyy-MM-dd, a real calendar date (2026-02-30 is rejected). */
export const dateSchema = z
  .string()
  .refine(isValidDate, 'must be a real date in the form yyyy-MM-dd');

/** yyyy-MM-ddTHH:mm:ss, a real calendar date and time. */
export const dateTimeSchema = z
  .string()
  .refine(isValidDateTime, 'must be a real date and time in the form yyyy-MM-ddTHH:mm:ss');

/** Either of the two date forms (ranges answer one or the other depending on the operation). */
export const dateOrDateTimeSchema = z
  .string()
  .refine((v) => isValidDate(v) || isValidDateTime(v), 'must be yyyy-MM-dd or yyyy-MM-ddTHH:mm:ss');

/**
 * Party identification. All four are strings; which are required is not shown
 * in the spec, so all are optional here (check digits are a business rule in validate/).
 */
export const identificationSchema = z.strictObject({
  DocumentNumber: z.string().optional(),
  DocumentType: z.string().optional(),
  CountryCode: z.string().optional(),
  CheckDigit: z.string().optional(),
});
export type Identification = z.infer<typeof identificationSchema>;

/**
 * Tax subtotal (VAT in `TaxSubTotals`, withholdings in `WithholdingTaxSubTotals`).
 * Withholding entries may carry only TaxCategory and TaxPercentage (support document
 * rule 6), so every field is optional; category codes are not shown in the spec.
 */
export const taxSubTotalSchema = z.strictObject({
  TaxCategory: z.string().optional(),
  TaxPercentage: percentageSchema.optional(),
  TaxableAmount: amountSchema.optional(),
  TaxAmount: amountSchema.optional(),
});
export type TaxSubTotal = z.infer<typeof taxSubTotalSchema>;

export const taxTotalSchema = z.strictObject({
  TaxCategory: z.string().optional(),
  TaxAmount: amountSchema.optional(),
});
export type TaxTotal = z.infer<typeof taxTotalSchema>;

/**
 * E1 document reference. The spec gives no format for its IssueDate; both date
 * forms used elsewhere in the spec are accepted. `Type` codes are not shown.
 */
export const documentReferenceSchema = z.strictObject({
  DocumentReferred: z.string().optional(),
  IssueDate: dateOrDateTimeSchema.optional(),
  Type: z.string().optional(),
  DocumentReferredCUFE: z.string().optional(),
});
export type DocumentReference = z.infer<typeof documentReferenceSchema>;

/** Line item. */
export const itemSchema = z.strictObject({
  Gtin: z.string().optional(),
  Description: z.string().optional(),
});

const messageListSchema = z.preprocess(
  (v) => (v === null || v === undefined ? [] : v),
  z.array(z.string()),
);

const resultDataSchema = z.union([
  z.string(),
  z.array(z.unknown()),
  z.record(z.string(), z.unknown()),
  z.null(),
]);

/**
 * Common response envelope, read tolerantly: unknown keys are kept, `Warnings`
 * (seen in some answers) is folded into `Warning`, missing or null message lists
 * become [], ResultData may be any documented type, null or missing.
 */
export const envelopeSchema = z.preprocess(
  (input) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
    const record = input as Record<string, unknown>;
    if (
      (record.Warning === undefined || record.Warning === null) &&
      record.Warnings !== undefined
    ) {
      const { Warnings, ...rest } = record;
      return { ...rest, Warning: Warnings };
    }
    return record;
  },
  z.looseObject({
    Errors: messageListSchema,
    IsValid: z.boolean(),
    ResultCode: z.number().int(),
    Warning: messageListSchema,
    ResultData: resultDataSchema.optional(),
  }),
);
export type Envelope = z.output<typeof envelopeSchema>;

/**
 * `when` option for object-level refinements: run them even when a field already
 * failed (zod skips them by default), so every problem of a request is reported
 * at once. The refinement then sees the raw input and must not trust field types.
 */
export const evenWithFieldIssues = {
  when: (payload: { value: unknown }): boolean =>
    payload.value !== null && typeof payload.value === 'object' && !Array.isArray(payload.value),
};

export interface IssueSummary {
  path: string;
  message: string;
}

/** Renders a zod path as `Lines[0].TaxSubTotals[1].TaxAmount` (empty string for the root). */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * Flattens a ZodError into `{path, message}` entries. An unknown key is reported
 * at its own path (`Lines[0].Quantty`) rather than at its parent object.
 */
export function formatZodIssues(error: z.ZodError): IssueSummary[] {
  const out: IssueSummary[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: formatIssuePath([...issue.path, key]), message: 'unknown field' });
      }
      continue;
    }
    out.push({ path: formatIssuePath(issue.path), message: issue.message });
  }
  return out;
}
