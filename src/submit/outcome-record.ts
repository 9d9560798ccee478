/**
 * How an attempt's outcome is written to the ledger: the slim outcome, the sticky "this attempt may
 * have reached the service" flag (decide.ts attemptMayHaveReached), and the problems, each with a
 * catalogue code.
 */
import type { ErrorCode } from '../errors.js';
import { posNoteOf } from '../kinds/index.js';
import { inDoubtAdvice, numberClashMessage, repeatedNumberMessage } from '../ledger/number-text.js';
import type { DueDocument, OutcomeRecord, ReportProblem } from '../ledger/types.js';
import type { ServiceResponse } from '../service/client-types.js';
import { assignedKey } from './assigned-key.js';
import { attemptMayHaveReached, type Decision, type FinalStatus } from './decide.js';

export function slim(outcome: ServiceResponse['outcome']): Record<string, unknown> {
  return {
    kind: outcome.kind,
    reason: outcome.reason,
    resultCode: outcome.resultCode,
    errorCode: outcome.errorCode,
  };
}

export const FINAL_CODES: Record<FinalStatus, ErrorCode> = {
  accepted: 'EDOC_SERVICE_DUPLICATE',
  duplicate: 'EDOC_SERVICE_DUPLICATE',
  rejected: 'EDOC_SERVICE_REJECTED',
  invalid: 'EDOC_SERVICE_INVALID',
  failed: 'EDOC_SUBMIT_GAVE_UP',
  'in-doubt': 'EDOC_SUBMIT_IN_DOUBT',
};

export function problems(
  code: ErrorCode,
  messages: readonly string[],
  reason: string,
): ReportProblem[] {
  if (messages.length > 0) return messages.map((message) => ({ code, message }));
  return [{ code, message: reason }];
}

function finalErrors(
  doc: DueDocument,
  response: ServiceResponse,
  decision: Extract<Decision, { action: 'final' }>,
): ReportProblem[] {
  const { outcome } = response;
  if (decision.status === 'accepted') return [];
  if (decision.clash === true)
    return [{ code: 'EDOC_SERVICE_NUMBER_CLASH', message: numberClashMessage(doc.key) }];
  if (decision.doubt === 'repeated-number') {
    return [
      {
        code: 'EDOC_SUBMIT_REPEATED_NUMBER',
        message: repeatedNumberMessage(
          doc.key,
          `${doc.company}/${doc.kind}/${doc.index}`,
          doc.kind,
          doc.kind === 'pos' && posNoteOf(doc.request) !== undefined,
        ),
      },
    ];
  }
  if (decision.status === 'duplicate' && outcome.messages.length === 0) return [];
  // a request the client never sent was refused by no service: its own code says nothing was issued
  const code =
    outcome.kind === 'unknown'
      ? 'EDOC_SERVICE_BAD_RESPONSE'
      : outcome.kind === 'invalid' && outcome.delivery === 'not-sent'
        ? 'EDOC_SERVICE_NOT_SENT'
        : FINAL_CODES[decision.status];
  const found = problems(code, outcome.messages, decision.note ?? outcome.reason);
  // a lost answer (a 500's message, a reset): what the service said, and what to do about a document it may hold
  if (decision.status === 'in-doubt') {
    const advice = inDoubtAdvice(doc.key ?? `${doc.fileName}#${doc.index}`);
    return found.map((p) => ({ ...p, message: `${p.message} ${advice}` }));
  }
  // A failed document an attempt of which may have reached the service may be issued already: it stays out
  // of the retry file (retry-file.ts), and the report says how to find out without issuing it twice.
  if (
    decision.status === 'failed' &&
    (doc.maybeDelivered || attemptMayHaveReached(outcome, response.httpStatus))
  ) {
    found.push({
      code: 'EDOC_SUBMIT_MAYBE_ISSUED',
      message:
        'An attempt may have reached the service, so it may be issued already: ' +
        'do not send it under another number. Re-queue it with edoc-bridge retry (a repeated-number answer then tells).',
    });
  }
  return found;
}

/** The ledger record of an attempt's decision; `now` dates a retry. */
export function outcomeRecord(
  doc: DueDocument,
  response: ServiceResponse,
  decision: Decision,
  now: number,
): OutcomeRecord {
  const { outcome, httpStatus } = response;
  const base = {
    id: doc.id,
    resultCode: outcome.resultCode === undefined ? null : String(outcome.resultCode),
    httpStatus: httpStatus ?? null,
    // the bridge's own warnings (a note's unknown reference) stay beside the service's
    warnings: [...(doc.warnings ?? []), ...outcome.warnings],
    response: response.body === '' ? null : response.body,
    outcome: slim(outcome),
    // a body that parsed as JSON is kept as the text that came (scrubbed): no stringify of what was just parsed
    ...(isJsonValue(response.body) ? { responseText: response.rawBody } : {}),
  };
  switch (decision.action) {
    case 'pause':
      // A 401 is answered before processing; the sticky flag of earlier attempts stays as it is.
      return {
        ...base,
        state: 'pending',
        nextAttemptAt: now,
        errors: problems('EDOC_SERVICE_UNAUTHORIZED', outcome.messages, outcome.reason),
        note: 'unauthorized: company paused',
      };
    case 'retry':
      return {
        ...base,
        state: 'pending',
        nextAttemptAt: now + decision.delayMs,
        maybeDelivered: decision.maybeDelivered,
        errors: problems('EDOC_SERVICE_TRANSIENT', outcome.messages, outcome.reason),
      };
    case 'final': {
      // a document the service numbered is known by its assigned number from now on
      const key = decision.status === 'accepted' ? assignedKey(doc, response) : undefined;
      return {
        ...base,
        state: decision.status,
        maybeDelivered: attemptMayHaveReached(outcome, httpStatus),
        errors: finalErrors(doc, response, decision),
        ...(decision.note ? { note: decision.note } : {}),
        ...(decision.doubt ? { doubt: decision.doubt } : {}),
        ...(key === undefined ? {} : { key }),
      };
    }
  }
}

/** Whether the client parsed the body as JSON (it hands over the raw text, a string, when it did not). */
function isJsonValue(body: unknown): boolean {
  return body !== undefined && body !== null && typeof body !== 'string';
}
