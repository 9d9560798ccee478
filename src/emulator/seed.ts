/**
 * The emulator seed file (PRODUCT.md "Emulator seed file"): which companies
 * exist, their keys, ranges, commissioning outcome and received documents, the
 * pinned "today" and the initial fault set.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { EdocError } from '../errors.js';
import { faultsSchema } from './faults.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** The create-numbering DocumentType values plus the seed-only `SupportAdjustmentNote`. */
export const rangeDocumentTypes = [
  'Invoice',
  'CreditNote',
  'DebitNote',
  'ContingencyInvoice',
  'SupportDocument',
  'Pos',
  'SupportAdjustmentNote',
] as const;
export type RangeDocumentType = (typeof rangeDocumentTypes)[number];

export const seedRangeSchema = z
  .strictObject({
    DocumentType: z.enum(rangeDocumentTypes),
    Prefix: z.string(),
    ResolutionNumber: z.string(),
    ResolutionDate: z.string().regex(DATE).nullable().default(null),
    TechnicalKey: z.string().nullable().default(null),
    FromNumber: z.number().int().nonnegative(),
    ToNumber: z.number().int().nonnegative(),
    ValidFrom: z.string().regex(DATE_TIME),
    ValidTo: z.string().regex(DATE_TIME),
    /** Next consecutive handed out when a request omits its number; default FromNumber. */
    Next: z.number().int().nonnegative().optional(),
    Active: z.boolean().default(true),
  })
  .transform((r) => ({ ...r, Next: r.Next ?? r.FromNumber }));
export type SeedRange = z.output<typeof seedRangeSchema>;

const invoiceCommissioning = z.enum(['enabled', 'succeed', 'fail', 'error']);
const posCommissioning = z.enum(['succeed', 'fail', 'partial', 'error']);

/**
 * Received documents are served as they are (key order included); only the
 * fields the emulator filters on are checked.
 */
export const seedReceivedSchema = z.record(z.string(), z.unknown()).superRefine((doc, ctx) => {
  for (const key of ['cufe', 'documentNumber', 'documentDate']) {
    if (typeof doc[key] !== 'string')
      ctx.addIssue({ code: 'custom', path: [key], message: 'must be a string' });
  }
  if (typeof doc.documentDate === 'string' && Number.isNaN(Date.parse(doc.documentDate))) {
    ctx.addIssue({ code: 'custom', path: ['documentDate'], message: 'must be an HTTP-date' });
  }
});

export const seedCompanySchema = z.strictObject({
  id: z.number().int().positive(),
  nit: z.string().regex(/^\d{1,15}$/),
  checkDigit: z.string().regex(/^\d$/),
  name: z.string(),
  apiKey: z.string().min(1),
  userIds: z.array(z.number().int()).default([]),
  payrollPrefix: z.string().default('NOM'),
  commissioning: z
    .strictObject({
      invoice: invoiceCommissioning.default('succeed'),
      payroll: invoiceCommissioning.default('succeed'),
      pos: posCommissioning.default('succeed'),
    })
    .default({ invoice: 'succeed', payroll: 'succeed', pos: 'succeed' }),
  ranges: z.array(seedRangeSchema).default([]),
  receivedDocuments: z.array(seedReceivedSchema).default([]),
});
export type SeedCompany = z.output<typeof seedCompanySchema>;

export const seedSchema = z.strictObject({
  /** null = the current date in Colombia (UTC-5); otherwise yyyy-MM-dd pinned. */
  today: z.string().regex(DATE).nullable().default(null),
  faults: faultsSchema.default(faultsSchema.parse({})),
  companies: z.array(seedCompanySchema).default([]),
});
export type Seed = z.output<typeof seedSchema>;
export type SeedInput = z.input<typeof seedSchema>;

/** Validates a seed object; throws EDOC_EMULATOR_SEED_INVALID naming the first bad key path. */
export function parseSeed(value: unknown, file?: string): Seed {
  const result = seedSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue.path.join('.') || '(root)';
    throw new EdocError(
      'EDOC_EMULATOR_SEED_INVALID',
      `Emulator seed ${file ?? ''} invalid at ${where}: ${issue.message}`.replace('  ', ' '),
      {
        file,
        field: where,
      },
    );
  }
  return result.data;
}

export async function loadSeedFile(file: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new EdocError(
      'EDOC_EMULATOR_SEED_INVALID',
      `Emulator seed ${file} cannot be read`,
      { file },
      { cause: err },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new EdocError(
      'EDOC_EMULATOR_SEED_INVALID',
      `Emulator seed ${file} is not valid JSON`,
      { file },
      { cause: err },
    );
  }
  return parseSeed(json, file);
}
