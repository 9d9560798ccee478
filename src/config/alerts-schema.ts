/**
 * The `alerts` section: where alerts go (a webhook, besides the log), when each kind fires, and how
 * often the numbering-range watch reads the company's ranges (E10). Every default lives here; the
 * section may be left out entirely (alerts are then logged only, ranges read every hour).
 */
import { z } from 'zod';
import { parseDuration } from './duration.js';

const toNumber = (value: unknown): unknown =>
  typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(toNumber, z.number().int().min(min).max(max));

const duration = (minMs: number) =>
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined || ms < minMs) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a duration of at least ${minMs / 1000}s such as 30s, 15m, 1h or 1h30m`,
      });
      return z.NEVER;
    }
    return ms;
  });

/**
 * The webhook's URL may carry a token (in its query, its path or its userinfo): it is a secret. It is
 * never logged (`config/redact.ts` shows it as origin only) and its parts are scrubbed from every line.
 */
const webhookSchema = z
  .string()
  .trim()
  .superRefine((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an http(s) URL such as https://hooks.example.com/edoc',
      });
      return;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: `must use https (or http), not ${url.protocol}` });
    }
  });

export const alertsSchema = z.strictObject({
  /** POSTs one JSON message per alert here (besides the log line). Absent: alerts are logged only. */
  webhook: webhookSchema.optional(),
  /** The service must have stopped answering this long before `service-down` fires. */
  serviceDownAfter: duration(1_000).prefault('60s'),
  /** `rejection-burst`: this many documents rejected by the authority within `within`, per company. */
  rejections: z
    .strictObject({
      count: int(1).default(20),
      within: duration(1_000).prefault('10m'),
    })
    .prefault({}),
  /** The numbering-range watch: how often E10 is read, and when a prefix's ranges need a person. */
  ranges: z
    .strictObject({
      /** How often each company's active ranges are read (E10); also read at start. */
      every: duration(60_000).prefault('1h'),
      /** `range-low` below this many numbers left in the prefix's current ranges. */
      numbersLeftBelow: int(0).default(500),
      /** `range-expiring` with fewer than this many days left. */
      daysLeftBelow: int(0).default(15),
      /** Refuse locally (`invalid`, EDOC_VALIDATE_OUT_OF_RANGE) a number outside every active range of its prefix. */
      refuseOutOfRange: z.boolean().default(true),
    })
    .prefault({}),
  /** `unsent-at-day-end`: documents still not sent this long before midnight in Colombia. */
  dayEndLead: duration(60_000).prefault('30m'),
  /** Webhook delivery: messages kept while the receiver is down (the oldest dropped, and counted, past this). */
  queue: int(1, 10_000).default(200),
  /** Webhook delivery: per-request timeout, and the backoff between attempts. */
  timeoutMs: int(100).default(10_000),
  baseDelayMs: int(1).default(1_000),
  maxDelayMs: int(1).default(300_000),
});

export type AlertsConfig = z.output<typeof alertsSchema>;
