/**
 * One page of E12, with the retries a pull allows: transient outcomes
 * (network, timeouts, 429/5xx other than the bad-date 500) are retried with
 * backoff and jitter, honouring Retry-After, a few times; everything else
 * ends the pull at once, as data the puller branches on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { nextDelay } from '../policy/backoff.js';
import { RequestNotStarted, type RateSender } from '../rate/company-rate.js';
import type {
  CallOptions,
  ListReceivedInput,
  ServiceCompany,
  ServiceResponse,
} from '../service/client-types.js';
import { receivedPageSchema } from '../service/schemas/received.js';
import type { ReceivedRecord } from './received-files.js';
import type { DateWindow } from './window.js';

/** What the puller needs of the service client (a `ServiceClient` fits). */
export interface ReceivedSource {
  listReceived(
    company: ServiceCompany,
    input: ListReceivedInput,
    options?: CallOptions,
  ): Promise<ServiceResponse>;
}

export interface PageRetry {
  /** Attempts per page, the first included. @defaultValue 4 */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The page envelope is checked strictly; each document only as an object, so
 * one record drifting from the spec is still written (as received) rather
 * than blocking its whole window forever.
 */
const pageSchema = receivedPageSchema.extend({ data: z.array(z.looseObject({})) });

export type StopReason = 'unauthorized' | 'unreachable' | 'bad-window' | 'bad-response' | 'aborted';

export interface FetchedPage {
  ok: true;
  data: ReceivedRecord[];
  total: number;
  totalPages: number;
}

export interface FailedPage {
  ok: false;
  stop: StopReason;
  code?: ErrorCode;
  message: string;
  httpStatus?: number;
}

export interface FetchPageInput {
  client: ReceivedSource;
  company: ServiceCompany;
  window: DateWindow;
  page: number;
  perPage: number;
  retry: PageRetry;
  logger: Logger;
  signal?: AbortSignal;
  random?: () => number;
  /** The company's rate: each request borrows a slot of it (dated when sent) and tells it of a 429. */
  rate?: RateSender | undefined;
}

function describe(res: ServiceResponse): string {
  const detail = res.outcome.messages[0] ?? res.outcome.raw ?? res.outcome.reason;
  return `${res.httpStatus === undefined ? 'no answer' : `HTTP ${res.httpStatus}`}: ${detail}`.slice(
    0,
    500,
  );
}

function aborted(): FailedPage {
  return { ok: false, stop: 'aborted', message: 'the pull was stopped' };
}

export async function fetchPage(input: FetchPageInput): Promise<FetchedPage | FailedPage> {
  const { window, page } = input;
  const where = `E12 ${window.from}..${window.to} page ${page}`;
  for (let attempt = 1; ; attempt += 1) {
    if (input.signal?.aborted) return aborted();
    const query = { startDate: window.from, endDate: window.to, page, perPage: input.perPage };
    const { rate, signal } = input;
    let res;
    try {
      res =
        rate === undefined
          ? await input.client.listReceived(input.company, query, { signal })
          : await rate.send(
              () => input.client.listReceived(input.company, query, { signal }),
              signal,
            );
    } catch (err) {
      // the company's gate closed while the page waited for its slot (cluster: a lease not renewed in
      // time): the pull stops as if stopped, and the next one starts from the same cursor
      if (err instanceof RequestNotStarted) return aborted();
      throw err;
    }
    if (input.signal?.aborted) return aborted();
    const httpStatus = res.httpStatus;
    switch (res.outcome.kind) {
      case 'accepted': {
        const resultData =
          typeof res.body === 'object' && res.body !== null
            ? (res.body as { ResultData?: unknown }).ResultData
            : undefined;
        const parsed = pageSchema.safeParse(resultData);
        if (parsed.success) {
          return {
            ok: true,
            data: parsed.data.data,
            total: parsed.data.total,
            totalPages: parsed.data.total_pages,
          };
        }
        const issue = parsed.error.issues[0];
        return {
          ok: false,
          stop: 'bad-response',
          code: 'EDOC_SERVICE_BAD_RESPONSE',
          httpStatus,
          message: `${where}: ResultData is not a page of received documents (${issue.path.join('.') || 'ResultData'}: ${issue.message})`,
        };
      }
      case 'unauthorized':
        return {
          ok: false,
          stop: 'unauthorized',
          code: 'EDOC_SERVICE_UNAUTHORIZED',
          httpStatus,
          message: `${where}: ${describe(res)}`,
        };
      case 'invalid':
        return {
          ok: false,
          stop: 'bad-window',
          code: 'EDOC_RECEIVED_BAD_WINDOW',
          httpStatus,
          message: `${where}: ${describe(res)}`,
        };
      case 'transient': {
        if (attempt >= input.retry.attempts) {
          return {
            ok: false,
            stop: 'unreachable',
            code: 'EDOC_SERVICE_UNREACHABLE',
            httpStatus,
            message: `${where}: ${describe(res)} (gave up after ${attempt} attempts)`,
          };
        }
        const delay = nextDelay(attempt, input.retry, res.outcome.retryAfterMs, input.random);
        input.logger.warn(
          { httpStatus, attempt, delayMs: delay, reason: res.outcome.reason },
          `${where} failed; retrying`,
        );
        try {
          await sleep(delay, undefined, { signal: input.signal });
        } catch {
          return aborted();
        }
        break;
      }
      default:
        return {
          ok: false,
          stop: 'bad-response',
          code: 'EDOC_SERVICE_BAD_RESPONSE',
          httpStatus,
          message: `${where}: ${describe(res)}`,
        };
    }
  }
}
