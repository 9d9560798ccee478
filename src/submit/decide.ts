/**
 * What to do after an attempt, decided from the classified outcome only
 * (CONVENTIONS point 4): a pure function, table-tested.
 *
 * The two delivery rules it encodes (PRODUCT "Delivery rules"):
 * - A document whose request may have reached the service without an answer
 *   coming back is resent only when it carries its own number: the authority
 *   then rejects the repeated number (Regla 90), which means our earlier
 *   attempt was accepted. Without its own number a resend would issue a second
 *   document under a new consecutive, so it becomes `in-doubt` and waits for an
 *   operator.
 * - A `duplicate` verdict is an acceptance when an earlier attempt of this very
 *   document may have been delivered; otherwise the number was issued before by
 *   someone else and the document is reported `duplicate`.
 */
import { nextDelay, type BackoffOptions } from '../policy/backoff.js';
import type { Outcome } from '../service/outcome.js';

export type FinalStatus = 'accepted' | 'rejected' | 'invalid' | 'failed' | 'duplicate' | 'in-doubt';

export type Decision =
  | { action: 'final'; status: FinalStatus; note?: string }
  | { action: 'retry'; delayMs: number; maybeDelivered: boolean; note?: string }
  /** The company's credentials were refused: park the document (attempt not counted) and pause the company. */
  | { action: 'pause' };

export interface DecideContext {
  /** The document carries its own number (prefix + number). */
  ownNumber: boolean;
  /** Number of this attempt (1 = first). */
  attempt: number;
  /** An earlier attempt (or a crash while sending) may have reached the service. */
  maybeDeliveredBefore: boolean;
  retry: BackoffOptions & { maxAttempts: number };
  random?: () => number;
}

/** Did this attempt possibly reach the service and get processed without us learning the verdict? */
export function mayHaveBeenDelivered(outcome: Outcome, httpStatus: number | undefined): boolean {
  if (httpStatus === undefined) return outcome.delivery !== 'not-sent';
  // 429 and 503 are answered before any processing; 500/502/504 may come after the document was issued.
  return outcome.kind === 'transient' && httpStatus !== 429 && httpStatus !== 503;
}

export function decide(outcome: Outcome, httpStatus: number | undefined, ctx: DecideContext): Decision {
  switch (outcome.kind) {
    case 'accepted':
      return { action: 'final', status: 'accepted' };
    case 'duplicate':
      return ctx.maybeDeliveredBefore
        ? { action: 'final', status: 'accepted', note: 'repeated number after a lost answer: accepted by an earlier attempt' }
        : { action: 'final', status: 'duplicate' };
    case 'rejected':
      return { action: 'final', status: 'rejected' };
    case 'invalid':
      return { action: 'final', status: 'invalid' };
    case 'unauthorized':
      return { action: 'pause' };
    case 'unknown':
      // A controlled processing error or an unreadable answer: the document may exist at the
      // authority. With its own number an operator's retry is safe (Regla 90 tells); without, it is in doubt.
      return ctx.ownNumber
        ? { action: 'final', status: 'failed', note: outcome.reason }
        : { action: 'final', status: 'in-doubt', note: outcome.reason };
    case 'transient': {
      // Without its own number a resend could issue a second document: only faults answered before any
      // processing (429, 503, a connection never made) are retried; a lost answer, a gateway timeout or an
      // uncontrolled 500/502 may come after the service issued it, so the document waits for an operator.
      if (!ctx.ownNumber && mayHaveBeenDelivered(outcome, httpStatus)) {
        return { action: 'final', status: 'in-doubt',
          note: `the request may have been processed (${outcome.reason}); the document has no own number, so it is not resent` };
      }
      const maybeDelivered = ctx.maybeDeliveredBefore || mayHaveBeenDelivered(outcome, httpStatus);
      // A request that never left (connection refused, name not resolved) only shows the service is down:
      // waiting cannot lose or double anything, so an outage of minutes does not use up the attempts and
      // fail every document; the delay keeps growing to maxDelayMs.
      const neverLeft = httpStatus === undefined && outcome.delivery === 'not-sent';
      if (!neverLeft && ctx.attempt >= ctx.retry.maxAttempts) {
        return { action: 'final', status: 'failed', note: `gave up after ${ctx.attempt} attempts: ${outcome.reason}` };
      }
      const delayMs = nextDelay(ctx.attempt, ctx.retry, outcome.retryAfterMs, ctx.random);
      return { action: 'retry', delayMs, maybeDelivered };
    }
  }
}
