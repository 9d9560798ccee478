/**
 * The outcome of a service response, decided in one place. `classify` is a
 * pure function of (operation, HTTP status, body, headers); retry, pause and
 * report decisions branch on `Outcome.kind` only.
 *
 * Decisions (the spec's result-code table, test/cases/result-codes.ts holds
 * every row):
 * - E1: 200/true accepted; 200/false rejected; ResultCode 401 in HTTP 200
 *   unauthorized; ResultCode 500 in HTTP 500 is the uncontrolled error →
 *   transient; ResultCode 500 in HTTP 200 is a controlled processing error →
 *   `unknown`: final, not retried automatically, reported as failed and
 *   re-queued by an operator (the document may or may not have reached the
 *   authority).
 * - E2: 422 (HTTP 200) rejected; 401/401 unauthorized; 400/400 invalid;
 *   502/502 and 500/500 transient.
 * - E5/E6: 200/true accepted, 200/false rejected, 400 in HTTP 200 invalid,
 *   401 in HTTP 200 unauthorized, 500/500 transient.
 * - E8/E9: 200 accepted (enabled); 304 in HTTP 200 rejected (ended without
 *   enabling); 401 unauthorized; E8 500/500 transient; E9 500 in HTTP 200
 *   unknown (as E1's controlled error).
 * - E10: 400 invalid, 403 unauthorized, 404 invalid, 500 transient.
 *   E11: 400 invalid, 403 unauthorized, 500 transient.
 * - E12: 200 accepted, 401 unauthorized; ResultCode 500 whose message says the
 *   date format is invalid → invalid (retrying cannot help), any other 500 →
 *   transient; the framework's HTTP 400 without an envelope → invalid, with the
 *   raw body kept in `raw`.
 * - E3: HTTP 200 POS record with authorityStatus "true" accepted, "false"
 *   rejected; HTTP 400 error record invalid. E7: commissioning record with
 *   habilitado true accepted, false rejected. E4 and E7 failures are "not
 *   shown": any documented shape the body has is read, otherwise the status
 *   decides and the raw body is kept.
 * - Any operation: HTTP 429/502/503/504 → transient with `Retry-After`
 *   honoured (seconds or HTTP-date, measured from the response's `Date`
 *   header when it has one); other 401/403 → unauthorized; other 4xx →
 *   invalid; other 5xx → transient; a 2xx body that cannot be understood (or a
 *   ResultCode 5xx in HTTP 200 on an operation the table does not list) →
 *   unknown; 1xx/3xx → unknown.
 * - A rejection whose only reason is the repeated-number rule
 *   (`Regla: 90, Rechazo: Documento procesado anteriormente.`) → duplicate:
 *   the service holds SOME document under the number. Whose it is cannot be
 *   read from the answer: src/submit/decide.ts decides with the ledger's fact
 *   of whether an attempt of ours with the number may have reached the service
 *   (a clash → `duplicate`; maybe ours → `in-doubt`, repeated-number).
 * - Network errors and timeouts → transient (`classifyNetworkError`).
 * - A request the HTTP client refused to send (a header value it cannot carry, any argument error:
 *   undici's `UND_ERR_INVALID_ARG`, Node's `ERR_INVALID_*`) → invalid, `delivery: 'not-sent'`:
 *   nothing reached the service, retrying cannot help, and it says nothing about the service.
 */
import { parseRetryAfter } from '../policy/retry-after.js';
import type { OperationId } from './endpoints.js';
import { readShape, type BodyShape } from './response-shape.js';

export type OutcomeKind =
  'accepted' | 'rejected' | 'duplicate' | 'invalid' | 'unauthorized' | 'transient' | 'unknown';

export interface Outcome {
  kind: OutcomeKind;
  /** ResultCode of an envelope body. */
  resultCode?: number;
  /** IsValid of an envelope body. */
  isValid?: boolean;
  /** Errors / rejection reasons / error-record messages, as the service wrote them. */
  messages: string[];
  /** Non-blocking notices (Warning, notificaciones). */
  warnings: string[];
  /** How long the service asked us to wait before the next attempt. */
  retryAfterMs?: number;
  /** One line saying why this kind was chosen (for logs and reports). */
  reason: string;
  /** The body text when it follows no documented shape (truncated). */
  raw?: string;
  /** Network failures only: whether the request can have reached the service. */
  delivery?: 'not-sent' | 'maybe-sent';
  /** Network failures only: the error code (UND_ERR_*, ECONNRESET, …). */
  errorCode?: string;
}

export type ResponseHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface ClassifyOptions {
  /** Clock for an HTTP-date Retry-After when the response has no `Date` header. */
  now?: number;
}

const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);
const REPEATED_NUMBER = /Regla:\s*90\b/i;
const REJECTION = /Rechazo/i;
const BAD_DATE = /invalid date format/i;

type Verdict = { kind: OutcomeKind; reason: string };

export function classify(
  op: OperationId,
  httpStatus: number,
  body: unknown,
  headers: ResponseHeaders = {},
  options: ClassifyOptions = {},
): Outcome {
  const shape = readShape(body);
  const verdict =
    httpStatus >= 200 && httpStatus < 300
      ? successVerdict(op, httpStatus, shape)
      : failureVerdict(op, httpStatus, shape);
  const outcome: Outcome = {
    kind: verdict.kind,
    messages: shape.messages,
    warnings: shape.warnings,
    reason: verdict.reason,
  };
  if (shape.type === 'envelope') {
    if (shape.resultCode !== undefined) outcome.resultCode = shape.resultCode;
    if (shape.isValid !== undefined) outcome.isValid = shape.isValid;
  }
  // Bodies outside the envelope/record shapes (E12's framework 400, E4/E7 "not shown") are kept as text.
  if ((shape.type === 'other' || shape.type === 'error-record') && shape.raw !== '')
    outcome.raw = shape.raw;
  if (verdict.kind === 'transient') {
    const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), clock(headers, options));
    if (retryAfterMs !== undefined) outcome.retryAfterMs = retryAfterMs;
  }
  return outcome;
}

function successVerdict(op: OperationId, http: number, shape: BodyShape): Verdict {
  switch (shape.type) {
    case 'envelope':
      return envelopeVerdict(op, http, shape);
    case 'pos-record':
      if (shape.authorityStatus === 'true')
        return { kind: 'accepted', reason: `${op} POS record with authorityStatus true` };
      if (shape.authorityStatus === 'false') {
        return rejection(shape.messages, `${op} POS record with authorityStatus false`);
      }
      return { kind: 'unknown', reason: `${op} POS record without a readable authorityStatus` };
    case 'commissioning':
      return shape.habilitado
        ? { kind: 'accepted', reason: `${op} commissioning record: habilitado true` }
        : { kind: 'rejected', reason: `${op} commissioning record: habilitado false` };
    case 'error-record':
      if (shape.status === 401 || shape.status === 403) {
        return {
          kind: 'unauthorized',
          reason: `${op} error record with status ${shape.status} in HTTP ${http}`,
        };
      }
      if (shape.status !== undefined && shape.status >= 400 && shape.status < 500) {
        return {
          kind: 'invalid',
          reason: `${op} error record with status ${shape.status} in HTTP ${http}`,
        };
      }
      return { kind: 'unknown', reason: `${op} error record in HTTP ${http}` };
    case 'other':
      return {
        kind: 'unknown',
        reason: `${op} HTTP ${http} with a body that follows no documented shape`,
      };
  }
}

function envelopeVerdict(
  op: OperationId,
  http: number,
  env: Extract<BodyShape, { type: 'envelope' }>,
): Verdict {
  const rc = env.resultCode;
  const where = `${op} ResultCode ${rc ?? '-'} IsValid ${env.isValid ?? '-'} in HTTP ${http}`;
  if (op === 'E12' && isBadDate(env.messages))
    return { kind: 'invalid', reason: `${where}: invalid date format` };
  if (env.isValid === true && (rc === undefined || (rc >= 200 && rc < 300)))
    return { kind: 'accepted', reason: where };
  if (rc === undefined) return { kind: 'unknown', reason: `${where}: no ResultCode` };
  if (rc === 401 || rc === 403) return { kind: 'unauthorized', reason: where };
  if (rc === 304 && (op === 'E8' || op === 'E9'))
    return { kind: 'rejected', reason: `${where}: ended without enabling` };
  if (rc === 422 || (rc === 200 && env.isValid === false))
    return rejection(env.messages, `${where}: rejected`);
  if (rc >= 400 && rc < 500) return { kind: 'invalid', reason: where };
  if (rc >= 500 && rc < 600) {
    // The table lists ResultCode 500 in HTTP 200 for E1 and E9 as a controlled
    // error: the document may have reached the authority, so no automatic retry.
    return {
      kind: 'unknown',
      reason: `${where}: controlled processing error, not retried automatically`,
    };
  }
  return { kind: 'unknown', reason: `${where}: ResultCode not documented for this operation` };
}

function failureVerdict(op: OperationId, http: number, shape: BodyShape): Verdict {
  const where =
    shape.type === 'envelope'
      ? `${op} HTTP ${http} ResultCode ${shape.resultCode ?? '-'}`
      : `${op} HTTP ${http}`;
  if (op === 'E12' && isBadDate(shape.messages))
    return { kind: 'invalid', reason: `${where}: invalid date format` };
  if (TRANSIENT_STATUSES.has(http)) return { kind: 'transient', reason: where };
  if (http === 401 || http === 403) return { kind: 'unauthorized', reason: where };
  if (http >= 400 && http < 500) {
    const framework = shape.type === 'envelope' ? '' : ': body is not an envelope';
    return { kind: 'invalid', reason: `${where}${framework}` };
  }
  if (http >= 500 && http < 600) return { kind: 'transient', reason: where };
  return { kind: 'unknown', reason: `${where}: unexpected status` };
}

/** A rejection whose every reason is the repeated-number rule is a duplicate. */
function rejection(messages: readonly string[], reason: string): Verdict {
  const explicit = messages.filter((m) => REJECTION.test(m));
  const reasons = explicit.length > 0 ? explicit : messages;
  if (reasons.length > 0 && reasons.every((m) => REPEATED_NUMBER.test(m))) {
    return { kind: 'duplicate', reason: `${reason} only for a repeated number (Regla 90)` };
  }
  return { kind: 'rejected', reason };
}

/** Whether one of the reasons is the repeated-number rule (Regla 90), alone or with others. */
export function mentionsRepeatedNumber(messages: readonly string[]): boolean {
  return messages.some((m) => REPEATED_NUMBER.test(m));
}

export function isRepeatedNumberOnly(messages: readonly string[]): boolean {
  return rejection(messages, '').kind === 'duplicate';
}

function isBadDate(messages: readonly string[]): boolean {
  return messages.some((m) => BAD_DATE.test(m));
}

function header(headers: ResponseHeaders, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  }
  return undefined;
}

function clock(headers: ResponseHeaders, options: ClassifyOptions): number {
  const date = header(headers, 'date');
  const serverNow = date === undefined ? Number.NaN : Date.parse(date);
  if (!Number.isNaN(serverNow)) return serverNow;
  return options.now ?? Date.now();
}

/** Connect-phase failures: the request cannot have reached the service. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CONNECT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/**
 * Errors the HTTP client raises before anything is written to a socket: the arguments of the request
 * (a header value with a character HTTP cannot carry, a bad path, a body of the wrong type).
 */
const CLIENT_SIDE_CODES = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_INVALID_RETURN_VALUE',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_INVALID_URL',
]);

/** Whether a failure is the HTTP client's refusal to send the request (nothing left this process). */
export function isClientSideError(err: unknown): boolean {
  return CLIENT_SIDE_CODES.has(networkErrorCode(err));
}

/**
 * A failure without an HTTP answer (connection refused or reset, DNS, timeout,
 * abort) → transient; a request the client refused to send → invalid, never sent. The message names the error code and never carries
 * request headers; `delivery` says whether the request can have gone out,
 * which decides between resending and in-doubt upstream.
 */
export function classifyNetworkError(err: unknown): Outcome {
  const code = networkErrorCode(err);
  const text = err instanceof Error ? err.message : String(err);
  if (CLIENT_SIDE_CODES.has(code)) {
    return {
      kind: 'invalid',
      messages: [
        `The request was never sent: the HTTP client refused it (${code}: ${text}); nothing reached the service.`.slice(
          0,
          300,
        ),
      ],
      warnings: [],
      reason: `request not sent: client-side error ${code}`,
      errorCode: code,
      delivery: 'not-sent',
    };
  }
  const message = `Network error ${code}: ${text}`.slice(0, 300);
  return {
    kind: 'transient',
    messages: [message],
    warnings: [],
    reason: `network error ${code}`,
    errorCode: code,
    delivery: NOT_SENT_CODES.has(code) ? 'not-sent' : 'maybe-sent',
  };
}

/** The first `code` found on the error or its causes; `ABORT_ERR` for an abort, `UNKNOWN` otherwise. */
export function networkErrorCode(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth += 1) {
    const record = current as { code?: unknown; name?: unknown; cause?: unknown };
    if (typeof record.code === 'string' && record.code !== '') return record.code;
    if (record.name === 'AbortError' || record.name === 'TimeoutError')
      return record.name === 'AbortError' ? 'ABORT_ERR' : 'TIMEOUT_ERR';
    current = record.cause;
  }
  return 'UNKNOWN';
}
