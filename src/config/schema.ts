import path from 'node:path';
import { z } from 'zod';
import { DOCUMENT_KINDS, type DocumentKind } from '../kinds/names.js';
import { alertsSchema } from './alerts-schema.js';
import { parseDuration } from './duration.js';
import { clusterSchema, ledgerSchema } from './ledger-schema.js';
import { httpSchema } from './http-schema.js';
import { masterDataSchema } from './master-data-schema.js';
import { isLoopbackHost } from './loopback.js';

export { isLoopbackHost };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Names a company alias may not take: they would collide with kind or outbox folders. */
const RESERVED_ALIASES = new Set<string>([...DOCUMENT_KINDS, 'received', 'archive']);

// `${VAR}` substitution always yields strings; numbers and booleans written that way
// are accepted when the whole string is a number / boolean.
const toNumber = (value: unknown): unknown =>
  typeof value === 'string' && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
const toBoolean = (value: unknown): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(toNumber, z.number().int().min(min).max(max));
const positiveNumber = () => z.preprocess(toNumber, z.number().positive());
const bool = () => z.preprocess(toBoolean, z.boolean());
const filePath = () => z.string().trim().min(1, 'must be a non-empty path');

const duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1_000) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a duration of at least 1s such as 30s, 15m, 1h or 1h30m',
    });
    return z.NEVER;
  }
  return ms;
});

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as yyyy-MM-dd')
  .refine((text) => {
    const date = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
  }, 'is not a real calendar date');

const serviceSchema = z
  .strictObject({
    /** `embedded` starts the bundled emulator in-process; otherwise the service's http(s) URL. */
    baseUrl: z.string().trim().default('embedded'),
    /** Which documented path form to call: the primary path or its alias. */
    paths: z.enum(['primary', 'alias']).default('primary'),
    /** Per-request timeout. */
    timeoutMs: int(1).default(30_000),
    /** Allows plain http to a host other than loopback. */
    allowInsecureHttp: bool().default(false),
  })
  .superRefine((service, ctx) => {
    if (service.baseUrl === 'embedded') return;
    let url: URL;
    try {
      url = new URL(service.baseUrl);
    } catch {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: 'must be "embedded" or an http(s) URL such as https://api.example.com',
      });
      return;
    }
    if (url.username !== '' || url.password !== '') {
      // undici's pool keeps only the origin: the credentials would never be sent, yet every log line would carry them
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message:
          'must not carry a user name or password (user:password@): the service authenticates each company by its apiKey; ' +
          'a proxy that needs credentials is not supported in this URL',
      });
      return;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: `must use https (or http on loopback), not ${url.protocol}`,
      });
    } else if (
      url.protocol === 'http:' &&
      !isLoopbackHost(url.hostname) &&
      !service.allowInsecureHttp
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: `plain http to ${url.hostname} would send API keys unencrypted; use https, or set service.allowInsecureHttp: true`,
      });
    }
  });

const rateSchema = z.strictObject({
  /** Requests started per second for this company (sliding window). */
  requestsPerSecond: positiveNumber().default(5),
  /** Requests in flight at once for this company. */
  concurrency: int(1, 64).default(4),
});

const companySchema = z
  .strictObject({
    /** Folder-safe name, used in folder names and on the command line. */
    alias: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_-]{0,63}$/i,
        'must be 1-64 ASCII letters (A-Z, a-z), digits, "-" or "_", starting with a letter or digit',
      )
      .refine(
        (alias) => !RESERVED_ALIASES.has(alias.toLowerCase()),
        'is reserved (a kind or outbox folder name)',
      ),
    /** Sent as x-company-id. */
    id: int(1),
    /** The company's NIT, digits only, without the check digit. */
    nit: z
      .union([z.string(), z.number().int().nonnegative()])
      .transform((value) => String(value).trim())
      .pipe(
        z
          .string()
          .regex(/^\d{5,15}$/, 'must be 5-15 digits, without the check digit (e.g. "900123456")'),
      ),
    apiKey: z.string().min(1, 'must not be empty').optional(),
    apiKeyFile: filePath().optional(),
    /** Sent as x-user-id / user-id where an operation needs it. */
    userId: int(1).optional(),
    rate: rateSchema.prefault({}),
  })
  .superRefine((company, ctx) => {
    const count = Number(company.apiKey !== undefined) + Number(company.apiKeyFile !== undefined);
    if (count !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [count === 0 ? 'apiKey' : 'apiKeyFile'],
        message:
          count === 0
            ? 'set exactly one of apiKey or apiKeyFile'
            : 'set only one of apiKey or apiKeyFile, not both',
      });
    }
  });

const kindSchema = z.strictObject({
  /** Mapping file for delimited (.csv/.txt) exports; JSON input needs none. */
  mapping: filePath().optional(),
  /** A disabled kind gets no inbox folder and is not watched. */
  enabled: bool().default(true),
});

const posKindSchema = kindSchema.extend({
  /** E3 path parameter; when absent it comes from the file's mapping or name. */
  tipo: z.enum(['pos', 'nota-ajuste-credito', 'nota-ajuste-debito', 'nota-ajuste']).optional(),
  /** E3 (file upload, the default) or E4 (JSON). */
  endpoint: z.enum(['E3', 'E4']).default('E3'),
});

/** One entry per name of DOCUMENT_KINDS (src/kinds/): `satisfies` refuses a missing or an extra kind. */
const kindsSchema = z.strictObject({
  invoice: kindSchema.prefault({}),
  'credit-note': kindSchema.prefault({}),
  'debit-note': kindSchema.prefault({}),
  payroll: kindSchema.prefault({}),
  'support-document': kindSchema.prefault({}),
  'support-adjustment': kindSchema.prefault({}),
  pos: posKindSchema.prefault({}),
} satisfies Record<DocumentKind, z.ZodType>);

const retrySchema = z
  .strictObject({
    /** Attempts per document for transient faults, the first one included. */
    maxAttempts: int(1, 100).default(8),
    baseDelayMs: int(1).default(500),
    maxDelayMs: int(1).default(60_000),
  })
  .refine((retry) => retry.baseDelayMs <= retry.maxDelayMs, {
    message: 'must not be below baseDelayMs',
    path: ['maxDelayMs'],
  });

const configObjectSchema = z.strictObject({
  service: serviceSchema.prefault({}),
  companies: z
    .array(companySchema)
    .min(1, 'configure at least one company')
    .superRefine((companies, ctx) => {
      const aliases = new Map<string, number>();
      const ids = new Map<number, number>();
      companies.forEach((company, index) => {
        const alias = company.alias.toLowerCase();
        if (aliases.has(alias)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'alias'],
            message: `"${company.alias}" is already used by companies[${aliases.get(alias)}]`,
          });
        } else aliases.set(alias, index);
        if (ids.has(company.id)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'id'],
            message: `${company.id} is already used by companies[${ids.get(company.id)}]`,
          });
        } else ids.set(company.id, index);
      });
    }),
  paths: z
    .strictObject({
      inbox: filePath().default('inbox'),
      outbox: filePath().default('outbox'),
      state: filePath().default('state'),
      logs: filePath().default('logs'),
    })
    .prefault({}),
  kinds: kindsSchema.prefault({}),
  retry: retrySchema.prefault({}),
  watch: z
    .strictObject({
      /** How long size and mtime must stay unchanged before a file is taken. */
      stableMs: int(0).default(1_000),
      /**
       * How long the daemon watches an original after archiving it: a writer that wrote on into the
       * archived copy (archiving is a rename) makes its file EDOC_READ_CHANGED_AFTER_SEND, and the copy
       * goes back to the inbox as a new file. 0 turns the watch off. Looks every `stableMs` (1 s when 0).
       * @defaultValue 600000 (10 minutes)
       */
      archiveWatchMs: int(0).default(600_000),
      /** Poll instead of native events (network shares). */
      usePolling: bool().default(false),
      /**
       * Done-marker convention (Camel's doneFileName): a data file is taken only once its marker exists.
       * Off while `suffixes` is empty. `NAME.ext.done` by default; `NAME.done` with `replaceExtension`.
       */
      doneMarker: z
        .strictObject({
          suffixes: z
            .array(z.string().regex(/^\.[^/\\]+$/, 'a suffix such as .done or .ok'))
            .default([]),
          replaceExtension: bool().default(false),
        })
        .prefault({}),
    })
    .prefault({}),
  read: z
    .strictObject({
      /**
       * Longest record of an input file: a CSV record in bytes, a JSON element or JSONL line in
       * characters. A longer one makes the file a file-level error, its content not quoted.
       */
      maxRecordBytes: int(1_024, 1_024 * 1_024 * 1_024).default(32 * 1_024 * 1_024),
      /**
       * How long the intake worker may spend on one row without answering before it is replaced: the
       * file it was mapping is refused (EDOC_READ_STUCK), the others are read again. Written as 30s, 2m;
       * milliseconds after parsing.
       */
      stuckAfter: duration.prefault('30s'),
    })
    .prefault({}),
  received: z
    .strictObject({
      enabled: bool().default(true),
      /** Pull interval; written as 30s, 15m, 1h; milliseconds after parsing. */
      every: duration.prefault('15m'),
      /** Each pull re-reads this many days before the cursor, to catch late documents. */
      lookbackDays: int(0, 365).default(3),
      perPage: int(1, 1_000).default(100),
      /** The first date pulled when there is no cursor yet. */
      startDate: isoDate.default('2026-01-01'),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z.enum(LOG_LEVELS).default('info'),
      /** Default: <paths.logs>/edoc-bridge.log. */
      file: filePath().optional(),
    })
    .prefault({}),
  ledger: ledgerSchema.prefault({}),
  cluster: clusterSchema.prefault({}),
  /** The operator listener (health, metrics, console); none when absent. See config/http-schema.ts. */
  http: httpSchema.optional(),
  alerts: alertsSchema.prefault({}),
  /** Master-data tables (customers, suppliers, employees) mappings read. See config/master-data-schema.ts. */
  masterData: masterDataSchema.prefault({}),
  emulator: z
    .strictObject({
      /** Seed file of the embedded / standalone emulator. */
      seed: filePath().default('config/emulator-seed.json'),
      /** Port of `edoc-bridge emulator`; 0 picks a free one. */
      port: int(0, 65_535).default(0),
      /** Where the emulator persists its state; in memory when absent. */
      state: filePath().optional(),
    })
    .prefault({}),
});

/** The one configuration schema: every default lives here. */
export const configSchema = configObjectSchema.transform((config) => ({
  ...config,
  log: { ...config.log, file: config.log.file ?? path.join(config.paths.logs, 'edoc-bridge.log') },
}));

export type ParsedConfig = z.output<typeof configSchema>;
export type CompanyConfig = ParsedConfig['companies'][number] & {
  /** Always present once loaded: read from apiKeyFile when that was given. */
  apiKey: string;
};
/** The loaded configuration: paths absolute, apiKey filled, log.file set. */
export type Config = Omit<ParsedConfig, 'companies' | 'log'> & {
  companies: CompanyConfig[];
  log: ParsedConfig['log'] & { file: string };
};
export type KindConfig = z.output<typeof kindSchema>;
export type PosKindConfig = z.output<typeof posKindSchema>;
