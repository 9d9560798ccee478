/**
 * The transport under the service client (service/client.ts): one keep-alive undici Pool per base
 * URL, a deadline per call, the credential headers an operation names, and one ServiceResponse per
 * call whatever happens. It never throws on a business outcome or a network failure and never
 * retries; the API key is scrubbed from everything it returns. Observers hear of every call.
 */
import { JsonText } from './json-text.js';
import { Deadlines } from './deadlines.js';
import { Pool } from 'undici';
import {
  ENDPOINTS,
  pathFor,
  type HeaderName,
  type OperationId,
  type PathForm,
} from './endpoints.js';
import { classify, classifyNetworkError, type Outcome } from './outcome.js';
import type {
  CallObserver,
  CallOptions,
  ResponseHeaderMap,
  ServiceClientOptions,
  ServiceCompany,
  ServiceResponse,
} from './client-types.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const REDACTED = '[redacted]';

export type Query = Record<string, string | number | undefined>;

export interface PreparedCall {
  path?: { tipo?: string };
  query?: Query;
  /** A JSON body (serialised here, unless it is JSON text already) or an encoded multipart body. */
  json?: unknown;
  multipart?: () => Promise<{ body: Buffer; contentType: string }>;
}

/** Sends one prepared call of an operation and classifies its answer (service/outcome.ts). */
export class ServiceTransport {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly paths: PathForm;
  private readonly timeoutMs: number;
  private readonly pool: Pool;
  private closing: Promise<void> | undefined;
  private readonly observers = new Set<CallObserver>();
  private readonly deadlines = new Deadlines();

  constructor(options: ServiceClientOptions) {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`service baseUrl must be http(s); got '${url.protocol}'`);
    }
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.paths = options.paths ?? 'primary';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.pool = new Pool(this.origin, {
      connections: options.connections ?? null,
      connect: { timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 10_000,
    });
  }

  /** Tells `observer` of every call from now on (after it ended); returns the function that stops it. */
  observe(observer: CallObserver): () => void {
    this.observers.add(observer);
    return () => {
      this.observers.delete(observer);
    };
  }

  /** Closes the pool; safe to call more than once. Calls made afterwards answer a transient outcome. */
  close(): Promise<void> {
    this.closing ??= this.pool.close().catch(() => this.pool.destroy());
    return this.closing;
  }

  async call(
    op: OperationId,
    company: ServiceCompany,
    prepared: PreparedCall,
    options: CallOptions = {},
  ): Promise<ServiceResponse> {
    const response = await this.send(op, company, prepared, options);
    if (this.observers.size > 0) {
      const record = {
        op,
        companyId: String(company.id),
        httpStatus: response.httpStatus,
        outcome: response.outcome.kind,
        durationMs: response.durationMs,
        aborted: options.signal?.aborted === true,
      };
      for (const observer of this.observers) {
        try {
          observer(record);
        } catch {
          /* an observer's fault is not the call's */
        }
      }
    }
    return response;
  }

  private async send(
    op: OperationId,
    company: ServiceCompany,
    prepared: PreparedCall,
    options: CallOptions,
  ): Promise<ServiceResponse> {
    const started = performance.now();
    const secret = company.apiKey;
    const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
    const def = ENDPOINTS[op];
    let path: string;
    let body: string | Buffer | undefined;
    const headers = credentialHeaders(def.headers.required, def.headers.optional, company);
    try {
      path =
        this.basePath +
        pathFor(op, options.paths ?? this.paths, prepared.path) +
        queryString(prepared.query);
      if (prepared.multipart !== undefined) {
        const encoded = await prepared.multipart();
        body = encoded.body;
        headers['content-type'] = encoded.contentType;
      } else if (prepared.json !== undefined) {
        body =
          prepared.json instanceof JsonText ? prepared.json.text : JSON.stringify(prepared.json);
        headers['content-type'] = 'application/json';
      }
    } catch (err) {
      // A request that cannot be built (unknown E3 tipo, unserialisable body) never leaves: invalid, not transient.
      const outcome: Outcome = {
        kind: 'invalid',
        messages: [scrub(err instanceof Error ? err.message : String(err), secret)],
        warnings: [],
        reason: `${op} request could not be built`,
        delivery: 'not-sent',
      };
      return { op, outcome, headers: {}, body: undefined, rawBody: '', durationMs: elapsed() };
    }

    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    try {
      const res = await this.pool.request({
        method: def.method,
        path,
        headers,
        body,
        signal: this.deadlines.signal(timeoutMs, options.signal),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const rawBody = scrub(await res.body.text(), secret);
      const responseHeaders = res.headers as ResponseHeaderMap;
      const parsed = parseBody(rawBody);
      const outcome = scrubOutcome(classify(op, res.statusCode, parsed, responseHeaders), secret);
      return {
        op,
        outcome,
        httpStatus: res.statusCode,
        headers: responseHeaders,
        body: parsed,
        rawBody,
        durationMs: elapsed(),
      };
    } catch (err) {
      const outcome = scrubOutcome(classifyNetworkError(err), secret);
      return { op, outcome, headers: {}, body: undefined, rawBody: '', durationMs: elapsed() };
    }
  }
}

/** The credential headers an operation names, spelled as the spec spells them; unknown values are left out. */
function credentialHeaders(
  required: readonly HeaderName[],
  optional: readonly HeaderName[],
  company: ServiceCompany,
): Record<string, string> {
  const values: Record<HeaderName, string | undefined> = {
    'x-api-key': company.apiKey,
    'x-company-id': String(company.id),
    'x-user-id': company.userId === undefined ? undefined : String(company.userId),
    'user-id': company.userId === undefined ? undefined : String(company.userId),
  };
  const headers: Record<string, string> = {};
  for (const name of [...required, ...optional]) {
    const value = values[name];
    if (value !== undefined && value !== '') headers[name] = value;
  }
  return headers;
}

function queryString(query: Query | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function parseBody(raw: string): unknown {
  const trimmed = raw.trim();
  if (trimmed === '') return raw;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return raw;
  }
}

function scrub(text: string, secret: string): string {
  // Very short keys would turn scrubbing into noise; configuration rejects them anyway.
  return secret.length >= 4 && text.includes(secret) ? text.split(secret).join(REDACTED) : text;
}

function scrubOutcome(outcome: Outcome, secret: string): Outcome {
  const clean: Outcome = {
    ...outcome,
    messages: outcome.messages.map((m) => scrub(m, secret)),
    warnings: outcome.warnings.map((w) => scrub(w, secret)),
    reason: scrub(outcome.reason, secret),
  };
  if (outcome.raw !== undefined) clean.raw = scrub(outcome.raw, secret);
  return clean;
}
