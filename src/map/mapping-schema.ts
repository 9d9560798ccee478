/**
 * The zod schema of a mapping YAML file. Field trees (`document`, `lines.fields`)
 * are checked node by node in compile-node.ts so errors can name the exact key.
 */
import { z } from 'zod';

const CONVERSIONS = [
  'text',
  'decimal',
  'number',
  'integer',
  'date',
  'datetime',
  'time',
  'id-number',
  'percent',
  'fraction',
] as const;

export const conversionSchema = z.enum(CONVERSIONS);

/** A value spec in its YAML form; `default` and `concat` items are checked recursively by the compiler. */
export const valueSpecSchema = z.strictObject({
  column: z.string().min(1).optional(),
  const: z.union([z.string(), z.number()]).optional(),
  concat: z.array(z.unknown()).min(1).optional(),
  separator: z.string().optional(),
  company: z.enum(['nit', 'alias', 'check-digit', 'identification']).optional(),
  position: z.literal(true).optional(),
  as: conversionSchema.optional(),
  time: z.string().min(1).optional(),
  lookup: z.string().min(1).optional(),
  default: z.unknown().optional(),
  required: z.boolean().optional(),
  kinds: z.array(z.string().min(1)).min(1).optional(),
  // values: an expression over columns, or part of a cell (see map/expr/, map/capture.ts)
  expr: z.string().optional(),
  capture: z
    .union([
      z.string().min(1),
      z.strictObject({
        pattern: z.string().min(1),
        group: z.union([z.string().min(1), z.number().int()]).optional(),
      }),
    ])
    .optional(),
  split: z
    .strictObject({
      on: z.string().min(1),
      part: z
        .number()
        .int()
        .refine((n) => n !== 0, 'part counts from 1 (or from -1 at the end)'),
      rest: z.boolean().optional(),
    })
    .optional(),
});
export type ValueSpecInput = z.infer<typeof valueSpecSchema>;

export const VALUE_SOURCE_KEYS = [
  'column',
  'const',
  'concat',
  'company',
  'position',
  'expr',
] as const;

const deriveItemSchema = z.union([
  z.string().min(1),
  z.strictObject({ name: z.string().min(1), inputs: z.record(z.string(), z.unknown()).optional() }),
]);

/**
 * `kindCheck`: columns of the export that show what a document is (a reason, a corrected document, a
 * document-type column, a note prefix), and the kinds each shows; compiled and checked in kind-check.ts.
 */
const kindCheckItemSchema = z.strictObject({
  column: z.string().min(1),
  filled: z.array(z.string().min(1)).min(1).optional(),
  values: z
    .record(z.string(), z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]))
    .optional(),
});
export type KindCheckInput = z.infer<typeof kindCheckItemSchema>;

/** `framing`, `rows`, `concepts`: rows as real exports hold them; conditions are compiled in row-condition.ts. */
const framingSchema = z.strictObject({
  headerRow: z.number().int().min(1).optional(),
  findHeader: z.array(z.string().min(1)).min(1).optional(),
  fillDown: z.array(z.string().min(1)).min(1).optional(),
});
/** `parts`: an export in two files joined on a key (map/parts.ts). */
const partSchema = z.strictObject({
  file: z.string().min(1),
  key: z.string().min(1),
  headerRows: z.number().int().min(1).max(10).optional(),
});
const rowsSchema = z.strictObject({
  skip: z.unknown().optional(),
  lines: z.unknown().optional(),
  document: z.unknown().optional(),
});
const conceptsSchema = z.strictObject({
  column: z.string().min(1),
  codes: z.record(z.string(), z.record(z.string(), z.unknown())),
  ignore: z.array(z.union([z.string(), z.number()])).optional(),
  amounts: z.array(z.string().min(1)).min(1).optional(),
});
/**
 * `reconcile`: columns where the export states figures (totals, taxes, withholding, line totals) that the
 * engine compares with what it computed (map/guards/); `guards`: the checks on by default in every mapping.
 */
const figureColumnsSchema = z.strictObject({
  total: z.string().min(1).optional(),
  net: z.string().min(1).optional(),
  gross: z.string().min(1).optional(),
  discount: z.string().min(1).optional(),
  withholding: z.string().min(1).optional(),
  tax: z
    .record(
      z.string().regex(/^\d{2}$/, 'a tax category is two digits (01 VAT, 04 consumption tax)'),
      z.string().min(1),
    )
    .optional(),
});
const reconcileSchema = z.strictObject({
  tolerance: z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d{1,2})?$/)]).optional(),
  document: figureColumnsSchema.optional(),
  lines: figureColumnsSchema.omit({ withholding: true }).optional(),
});
const guardsSchema = z.strictObject({
  vatRates: z
    .array(z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d{1,2})?$/)]))
    .min(1)
    .optional(),
  zeroLines: z.enum(['invalid', 'allow']).optional(),
  negative: z.enum(['invalid', 'allow']).optional(),
});
export type ReconcileInput = z.infer<typeof reconcileSchema>;
export type GuardsInput = z.infer<typeof guardsSchema>;

export const mappingFileSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  kinds: z.array(z.string().min(1)).min(1),
  format: z
    .strictObject({
      delimiter: z.enum([';', ',', '\t', 'tab', 'auto']).default('auto'),
      encoding: z
        .enum(['utf-8', 'utf8', 'windows-1252', 'cp1252', 'latin1', 'iso-8859-1', 'auto'])
        .default('auto'),
      decimal: z.enum([',', '.']).default(','),
      thousands: z.enum(['.', ',', ' ', '']).default('.'),
      date: z.string().min(1).default('dd/MM/yyyy'),
      sheet: z.string().min(1).optional(),
      threeDecimals: z.array(z.string().min(1)).min(1).optional(),
    })
    .default({
      delimiter: 'auto',
      encoding: 'auto',
      decimal: ',',
      thousands: '.',
      date: 'dd/MM/yyyy',
    })
    .refine((f) => f.decimal !== f.thousands, {
      message: 'decimal and thousands separators must differ',
    }),
  key: z.union([
    z.array(z.string().min(1)).min(1),
    z.array(z.array(z.string().min(1)).min(1)).min(1),
  ]),
  keyRepeats: z.boolean().default(false),
  lookups: z
    .record(z.string(), z.record(z.string(), z.union([z.string(), z.number()])))
    .default({}),
  document: z.record(z.string(), z.unknown()),
  lines: z
    .strictObject({
      field: z.string().min(1).default('Lines'),
      key: z.string().min(1).optional(),
      fields: z.record(z.string(), z.unknown()),
    })
    .optional(),
  derive: z.union([deriveItemSchema, z.array(deriveItemSchema)]).optional(),
  kindCheck: z.array(kindCheckItemSchema).optional(),
  route: z
    .strictObject({ column: z.string().min(1), values: z.record(z.string(), z.string().min(1)) })
    .optional(),
  framing: framingSchema.optional(),
  parts: z
    .strictObject({
      header: partSchema,
      lines: partSchema,
      waitMs: z.number().int().min(1_000).optional(),
    })
    .optional(),
  rows: rowsSchema.optional(),
  concepts: conceptsSchema.optional(),
  reconcile: reconcileSchema.optional(),
  guards: guardsSchema.optional(),
});
export type MappingFile = z.infer<typeof mappingFileSchema>;
