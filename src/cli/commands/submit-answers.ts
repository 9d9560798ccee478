/**
 * What the service's answers during `edoc-bridge submit` say, for its last line: requests that never
 * left, answers lost after a request went out, and whether every failure was the service's.
 */
import type { LedgerPort } from '../../ledger/port.js';
import type { ServiceClient } from '../../service/client.js';
import type { ServiceResponse } from '../../service/client-types.js';

/**
 * Counts the requests in a row that never reached the service (connection refused, no such host), over
 * every method of the client; any answer from the service starts the count again.
 */
export class AnswerWatch {
  unanswered = 0;
  /** Requests that never left (connection refused, no such host), over the whole run. */
  notSent = 0;
  /** Requests that went out and got no answer (connection dropped, timeout): the service may have processed them. */
  lost = 0;
  lostCode: string | undefined;

  watch(client: ServiceClient): ServiceClient {
    return new Proxy(client, {
      get: (target, prop) => {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function' || prop === 'close')
          return typeof value === 'function' ? value.bind(target) : value;
        return (...args: unknown[]): unknown => {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise ? result.then((r: unknown) => this.see(r)) : result;
        };
      },
    });
  }

  private see<T>(response: T): T {
    const r = response as Partial<ServiceResponse> | undefined;
    if (r?.outcome !== undefined) {
      // a request the client refused to send (invalid, not-sent) says nothing about the service
      const unreachable =
        r.httpStatus === undefined &&
        r.outcome.kind === 'transient' &&
        r.outcome.delivery === 'not-sent';
      this.unanswered = unreachable ? this.unanswered + 1 : 0;
      if (unreachable) this.notSent += 1;
      if (r.httpStatus === undefined && r.outcome.delivery === 'maybe-sent') {
        this.lost += 1;
        this.lostCode = r.outcome.errorCode;
      }
    }
    return response;
  }
}

/**
 * Documents failed without any answer: say what is known. A request that went out and lost its answer may
 * have been processed (a failed document is one with its own number, so a resend cannot issue it twice).
 */
export function noAnswer(where: string, answers: AnswerWatch, name: string): string {
  if (answers.lost === 0) return `${where} could not be reached`;
  const retry =
    `the service may have processed them: the failed documents may have been issued. Re-queue them with ` +
    `edoc-bridge retry --file ${name} (one the service issued already is then answered as processed before: never issued twice, ` +
    'it is held in doubt until you confirm at the authority that it is yours with edoc-bridge resolve)';
  const code = answers.lostCode === undefined ? '' : ` (${answers.lostCode})`;
  return answers.notSent === 0
    ? `the connection dropped after the requests went out and no answer came back from ${where}${code}; ${retry}`
    : `${where} could not be reached on some attempts, and on others the connection dropped after the requests went out${code}; ${retry}`;
}

/**
 * Every failed document of the file failed for want of a service (no answer, or HTTP 429/5xx on the last
 * attempt): 'unreachable' or the HTTP statuses seen; undefined when a failure was something else.
 */
export async function serviceTrouble(
  ledger: LedgerPort,
  fileId: number,
): Promise<string | undefined> {
  const statuses = new Set<number>();
  for await (const doc of ledger.iterateFileDocuments(fileId)) {
    if (doc.state !== 'failed' || doc.httpStatus === null) continue;
    if (doc.httpStatus !== 429 && doc.httpStatus < 500) return undefined;
    statuses.add(doc.httpStatus);
  }
  return statuses.size === 0 ? 'unreachable' : [...statuses].sort().join(', ');
}
