/**
 * What to do after an attempt, decided from the classified outcome only
 * (CONVENTIONS point 4): a pure function, table-tested.
 *
 * The delivery rules it encodes (PRODUCT "Delivery rules", docs/operations.md "Repeated numbers"):
 * - A document whose request may have reached the service without an answer
 *   coming back is resent only when it carries its own number: the service
 *   knows the number, so a resend cannot issue a second document. Without its
 *   own number a resend would issue a second document under a new consecutive,
 *   so it becomes `in-doubt` (`no-answer`) and waits for an operator.
 * - A repeated-number answer (Regla 90) says only that the service holds SOME
 *   document under the number. Whether it can be ours is a ledger fact the
 *   caller passes in (`numberMayHaveBeenDelivered`: an attempt of ours with this
 *   number, of any document of its family, may have reached the service):
 *   - no → nothing of ours can be there: a clash, final `duplicate` (the error
 *     names the number; the document was not issued);
 *   - yes → it may be ours or someone else's: never `accepted` on that answer
 *     alone. Final `in-doubt` with doubt `repeated-number`; the operator
 *     confirms at the authority and runs `resolve --issued` or `--not-ours`.
 *   A rejection naming Regla 90 among other reasons (a range no longer current
 *   at a resend) is decided the same way when the flag is set.
 */
import { nextDelay, type BackoffOptions } from '../policy/backoff.js';
import type { DoubtReason } from '../ledger/types.js';
import { mentionsRepeatedNumber, type Outcome } from '../service/outcome.js';

export type FinalStatus = 'accepted' | 'rejected' | 'invalid' | 'failed' | 'duplicate' | 'in-doubt';

export type Decision =
  /** `doubt` for in-doubt (why); `clash` for a duplicate whose number another document holds at the service. */
  | { action: 'final'; status: FinalStatus; note?: string; doubt?: DoubtReason; clash?: true }
  /** `maybeDelivered`: this attempt may have reached the service (the ledger keeps that for good). */
  | { action: 'retry'; delayMs: number; maybeDelivered: boolean; note?: string }
  /** The company's credentials were refused: park the document (attempt not counted) and pause the company. */
  | { action: 'pause' };

export interface DecideContext {
  /** The document carries its own number (prefix + number). */
  ownNumber: boolean;
  /** Number of this attempt (1 = first). */
  attempt: number;
  /**
   * An earlier attempt of ours with this number (this document or another of its number family) may
   * have reached the service: the ledger's sticky fact. Only read for a repeated-number answer.
   */
  numberMayHaveBeenDelivered: boolean;
  retry: BackoffOptions & { maxAttempts: number };
  random?: () => number;
}

/** Did this attempt possibly reach the service and get processed without us learning the verdict? */
export function mayHaveBeenDelivered(outcome: Outcome, httpStatus: number | undefined): boolean {
  if (httpStatus === undefined) return outcome.delivery !== 'not-sent';
  // 429 and 503 are answered before any processing; 500/502/504 may come after the document was issued.
  return outcome.kind === 'transient' && httpStatus !== 429 && httpStatus !== 503;
}

/**
 * Whether this attempt must set the ledger's sticky "may have been delivered" flag: a transient fault
 * that may follow processing (see mayHaveBeenDelivered) or an answer that is not a verdict (a
 * controlled ResultCode 500, an unreadable body). A verdict (accepted, rejected, invalid, Regla 90)
 * or a refusal before processing (401, 429, 503, a connection never made) does not.
 */
export function attemptMayHaveReached(outcome: Outcome, httpStatus: number | undefined): boolean {
  if (outcome.kind === 'unknown') return true;
  return outcome.kind === 'transient' && mayHaveBeenDelivered(outcome, httpStatus);
}

export function decide(
  outcome: Outcome,
  httpStatus: number | undefined,
  ctx: DecideContext,
): Decision {
  switch (outcome.kind) {
    case 'accepted':
      return { action: 'final', status: 'accepted' };
    case 'duplicate':
      return ctx.numberMayHaveBeenDelivered
        ? {
            action: 'final',
            status: 'in-doubt',
            doubt: 'repeated-number',
            note: 'repeated number (Regla 90) after an attempt of ours that may have reached the service: not a confirmed acceptance',
          }
        : {
            action: 'final',
            status: 'duplicate',
            clash: true,
            note: 'repeated number (Regla 90) and nothing of ours with it can have reached the service: another document holds it',
          };
    case 'rejected':
      // Regla 90 beside other reasons (a range no longer current at the resend): the reasons refuse this
      // attempt, but the service holds a document under the number, and it may be our earlier attempt.
      return ctx.numberMayHaveBeenDelivered && mentionsRepeatedNumber(outcome.messages)
        ? {
            action: 'final',
            status: 'in-doubt',
            doubt: 'repeated-number',
            note: 'rejected with Regla 90 (repeated number) after an attempt of ours that may have reached the service: not a confirmed rejection',
          }
        : { action: 'final', status: 'rejected' };
    case 'invalid':
      return { action: 'final', status: 'invalid' };
    case 'unauthorized':
      return { action: 'pause' };
    case 'unknown':
      // A controlled processing error or an unreadable answer: the document may exist at the
      // authority. With its own number an operator's retry cannot issue it twice; without, it is in doubt.
      return ctx.ownNumber
        ? { action: 'final', status: 'failed', note: outcome.reason }
        : { action: 'final', status: 'in-doubt', doubt: 'no-answer', note: outcome.reason };
    case 'transient': {
      const maybeDelivered = mayHaveBeenDelivered(outcome, httpStatus);
      // Without its own number a resend could issue a second document: only faults answered before any
      // processing (429, 503, a connection never made) are retried; a lost answer, a gateway timeout or an
      // uncontrolled 500/502 may come after the service issued it, so the document waits for an operator.
      if (!ctx.ownNumber && maybeDelivered) {
        return {
          action: 'final',
          status: 'in-doubt',
          doubt: 'no-answer',
          note: `the request may have been processed (${outcome.reason}); the document has no own number, so it is not resent`,
        };
      }
      // A request that never left (connection refused, name not resolved) only shows the service is down:
      // waiting cannot lose or double anything, so an outage of minutes does not use up the attempts and
      // fail every document; the delay keeps growing to maxDelayMs.
      const neverLeft = httpStatus === undefined && outcome.delivery === 'not-sent';
      if (!neverLeft && ctx.attempt >= ctx.retry.maxAttempts) {
        return {
          action: 'final',
          status: 'failed',
          note: `gave up after ${ctx.attempt} attempts: ${outcome.reason}`,
        };
      }
      const delayMs = nextDelay(ctx.attempt, ctx.retry, outcome.retryAfterMs, ctx.random);
      return { action: 'retry', delayMs, maybeDelivered };
    }
  }
}
