/**
 * How an attempt's outcome is written to the ledger: the slim outcome kept for the next attempt's
 * decision (with its "may have been delivered" mark) and the problems, each with a catalogue code.
 */
import type { ErrorCode } from '../errors.js';
import type { DueDocument, OutcomeRecord, ReportProblem } from '../ledger/types.js';
import type { ServiceResponse } from '../service/client-types.js';
import { assignedKey } from './assigned-key.js';
import type { Decision, FinalStatus } from './decide.js';

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

/** The ledger record of an attempt's decision; `now` dates a retry. */
export function outcomeRecord(doc: DueDocument, response: ServiceResponse, decision: Decision, now: number): OutcomeRecord {
  const { outcome, httpStatus } = response;
  const base = {
    id: doc.id, resultCode: outcome.resultCode === undefined ? null : String(outcome.resultCode),
    httpStatus: httpStatus ?? null, warnings: outcome.warnings,
    response: response.body === '' ? null : response.body,
  };
  switch (decision.action) {
    case 'pause':
      // A 401 proves nothing about earlier attempts: keep "may have been delivered" for the resend's verdict.
      return { ...base, state: 'pending', nextAttemptAt: now, outcome: slim(outcome, maybeDelivered(doc.lastOutcome)),
        errors: problems('EDOC_SERVICE_UNAUTHORIZED', outcome.messages, outcome.reason), note: 'unauthorized: company paused' };
    case 'retry':
      return { ...base, state: 'pending', nextAttemptAt: now + decision.delayMs,
        outcome: slim(outcome, decision.maybeDelivered), errors: problems('EDOC_SERVICE_TRANSIENT', outcome.messages, outcome.reason) };
    case 'final': {
      const errors = decision.status === 'accepted' || decision.status === 'duplicate' && outcome.messages.length === 0
        ? [] : problems(outcome.kind === 'unknown' ? 'EDOC_SERVICE_BAD_RESPONSE' : FINAL_CODES[decision.status], outcome.messages,
          decision.note ?? outcome.reason);
      // a document the service numbered is known by its assigned number from now on
      const key = decision.status === 'accepted' ? assignedKey(doc, response) : undefined;
      return { ...base, state: decision.status, outcome: slim(outcome, false), errors, ...(decision.note ? { note: decision.note } : {}),
        ...(key === undefined ? {} : { key }) };
    }
  }
}
