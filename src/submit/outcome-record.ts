/**
 * How an attempt's outcome is written to the ledger: the slim outcome kept for the next attempt's
 * decision (with its "may have been delivered" mark) and the problems, each with a catalogue code.
 */
import type { ErrorCode } from '../errors.js';
import type { ReportProblem } from '../ledger/types.js';
import type { ServiceResponse } from '../service/client-types.js';
import type { FinalStatus } from './decide.js';

/** An earlier attempt (or a crash while sending) may have reached the service. */
export function maybeDelivered(lastOutcome: unknown): boolean {
  if (lastOutcome === null || typeof lastOutcome !== 'object') return false;
  const o = lastOutcome as { kind?: unknown; maybeDelivered?: unknown };
  return o.maybeDelivered === true || o.kind === 'unknown';
}

export function slim(outcome: ServiceResponse['outcome'], maybeDeliveredFlag: boolean): Record<string, unknown> {
  return { kind: outcome.kind, reason: outcome.reason, resultCode: outcome.resultCode, errorCode: outcome.errorCode,
    ...(maybeDeliveredFlag ? { maybeDelivered: true } : {}) };
}

export const FINAL_CODES: Record<FinalStatus, ErrorCode> = {
  accepted: 'EDOC_SERVICE_DUPLICATE', duplicate: 'EDOC_SERVICE_DUPLICATE', rejected: 'EDOC_SERVICE_REJECTED',
  invalid: 'EDOC_SERVICE_INVALID', failed: 'EDOC_SUBMIT_GAVE_UP', 'in-doubt': 'EDOC_SUBMIT_IN_DOUBT',
};

export function problems(code: ErrorCode, messages: readonly string[], reason: string): ReportProblem[] {
  if (messages.length > 0) return messages.map((message) => ({ code, message }));
  return [{ code, message: reason }];
}
