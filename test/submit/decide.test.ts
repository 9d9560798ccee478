import { describe, expect, it } from 'vitest';
import {
  attemptMayHaveReached,
  decide,
  mayHaveBeenDelivered,
  type DecideContext,
} from '../../src/submit/decide.js';
import type { Outcome } from '../../src/service/outcome.js';

const retry = { baseDelayMs: 500, maxDelayMs: 60_000, maxAttempts: 4 };
const ctx = (over: Partial<DecideContext> = {}): DecideContext => ({
  ownNumber: true,
  attempt: 1,
  numberMayHaveBeenDelivered: false,
  retry,
  random: () => 0.5,
  ...over,
});
const outcome = (kind: Outcome['kind'], over: Partial<Outcome> = {}): Outcome => ({
  kind,
  messages: [],
  warnings: [],
  reason: kind,
  ...over,
});

describe('decide', () => {
  it('accepted, rejected and invalid are final', () => {
    expect(decide(outcome('accepted'), 200, ctx())).toEqual({
      action: 'final',
      status: 'accepted',
    });
    expect(decide(outcome('rejected'), 200, ctx())).toEqual({
      action: 'final',
      status: 'rejected',
    });
    expect(decide(outcome('invalid'), 400, ctx())).toEqual({ action: 'final', status: 'invalid' });
  });

  it('a repeated number (Regla 90) when nothing of ours with that number can have reached the service is a clash: duplicate', () => {
    for (const attempt of [1, 2, 5]) {
      const d = decide(outcome('duplicate'), 200, ctx({ attempt }));
      expect(d).toMatchObject({ action: 'final', status: 'duplicate', clash: true });
      expect(d.action === 'final' && d.note).toMatch(/another document holds it/);
    }
  });

  it('a repeated number when an attempt of ours may have reached the service is in-doubt (repeated-number), never accepted', () => {
    for (const ownNumber of [true, false]) {
      const d = decide(
        outcome('duplicate'),
        200,
        ctx({ attempt: 2, ownNumber, numberMayHaveBeenDelivered: true }),
      );
      expect(d).toMatchObject({ action: 'final', status: 'in-doubt', doubt: 'repeated-number' });
      expect(d.action === 'final' && d.clash).toBeUndefined();
    }
  });

  it('the ledger fact does not change any other verdict', () => {
    const maybe = ctx({ numberMayHaveBeenDelivered: true });
    expect(decide(outcome('accepted'), 200, maybe)).toEqual({
      action: 'final',
      status: 'accepted',
    });
    expect(decide(outcome('rejected'), 200, maybe)).toEqual({
      action: 'final',
      status: 'rejected',
    });
    expect(decide(outcome('transient', { delivery: 'not-sent' }), undefined, maybe)).toMatchObject({
      action: 'retry',
      maybeDelivered: false,
    });
  });

  it('which attempts set the sticky "may have reached the service" flag', () => {
    const reset = outcome('transient', { delivery: 'maybe-sent', errorCode: 'ECONNRESET' });
    const refused = outcome('transient', { delivery: 'not-sent', errorCode: 'ECONNREFUSED' });
    // a reset or timeout after the request left, an uncontrolled 500/502/504, a controlled ResultCode 500
    expect(attemptMayHaveReached(reset, undefined)).toBe(true);
    expect(
      attemptMayHaveReached(
        outcome('transient', { delivery: 'maybe-sent', errorCode: 'UND_ERR_HEADERS_TIMEOUT' }),
        undefined,
      ),
    ).toBe(true);
    for (const status of [500, 502, 504])
      expect(attemptMayHaveReached(outcome('transient'), status)).toBe(true);
    expect(attemptMayHaveReached(outcome('unknown', { resultCode: 500 }), 200)).toBe(true);
    // never reached, or answered with a verdict
    expect(attemptMayHaveReached(refused, undefined)).toBe(false);
    for (const status of [429, 503])
      expect(attemptMayHaveReached(outcome('transient'), status)).toBe(false);
    expect(attemptMayHaveReached(outcome('unauthorized'), 401)).toBe(false);
    for (const kind of ['accepted', 'rejected', 'invalid', 'duplicate'] as const)
      expect(attemptMayHaveReached(outcome(kind), 200)).toBe(false);
  });

  it('a retry records whether THIS attempt may have reached the service, whatever earlier ones did', () => {
    expect(
      decide(
        outcome('transient', { retryAfterMs: 1000 }),
        429,
        ctx({ numberMayHaveBeenDelivered: true }),
      ),
    ).toMatchObject({ action: 'retry', maybeDelivered: false });
    expect(decide(outcome('transient'), 502, ctx())).toMatchObject({
      action: 'retry',
      maybeDelivered: true,
    });
  });

  it('unauthorized pauses the company instead of failing the document', () => {
    expect(decide(outcome('unauthorized'), 200, ctx())).toEqual({ action: 'pause' });
  });

  it('a transient fault is retried with backoff, honouring Retry-After', () => {
    const d = decide(outcome('transient', { retryAfterMs: 5000 }), 429, ctx());
    expect(d).toEqual({ action: 'retry', delayMs: 5000, maybeDelivered: false });
    const e = decide(outcome('transient'), 503, ctx({ attempt: 3 }));
    expect(e.action).toBe('retry');
    if (e.action === 'retry') expect(e.delayMs).toBeLessThan(2000);
  });

  it('gives up after maxAttempts with status failed', () => {
    expect(decide(outcome('transient'), 502, ctx({ attempt: 4 }))).toMatchObject({
      action: 'final',
      status: 'failed',
    });
  });

  it('a lost answer on a document with its own number is resent, remembering it may have been delivered', () => {
    const lost = outcome('transient', { delivery: 'maybe-sent', errorCode: 'ECONNRESET' });
    expect(decide(lost, undefined, ctx())).toMatchObject({ action: 'retry', maybeDelivered: true });
  });

  it('a lost answer on a document without its own number makes it in-doubt, never resent', () => {
    const lost = outcome('transient', { delivery: 'maybe-sent', errorCode: 'UND_ERR_SOCKET' });
    expect(decide(lost, undefined, ctx({ ownNumber: false }))).toMatchObject({
      action: 'final',
      status: 'in-doubt',
    });
    expect(decide(outcome('transient'), 504, ctx({ ownNumber: false }))).toMatchObject({
      action: 'final',
      status: 'in-doubt',
    });
  });

  it('an uncontrolled 500 or a 502 on a document without its own number makes it in-doubt; 429 and 503 are retried', () => {
    expect(decide(outcome('transient'), 500, ctx({ ownNumber: false }))).toMatchObject({
      action: 'final',
      status: 'in-doubt',
    });
    expect(decide(outcome('transient'), 502, ctx({ ownNumber: false }))).toMatchObject({
      action: 'final',
      status: 'in-doubt',
    });
    expect(
      decide(outcome('transient', { retryAfterMs: 1000 }), 429, ctx({ ownNumber: false })),
    ).toMatchObject({ action: 'retry' });
    expect(decide(outcome('transient'), 503, ctx({ ownNumber: false }))).toMatchObject({
      action: 'retry',
    });
  });

  it('a connection refused before sending is retried even without an own number', () => {
    const refused = outcome('transient', { delivery: 'not-sent', errorCode: 'ECONNREFUSED' });
    expect(decide(refused, undefined, ctx({ ownNumber: false }))).toMatchObject({
      action: 'retry',
      maybeDelivered: false,
    });
  });

  it('an unknown answer is failed with an own number and in-doubt without', () => {
    expect(decide(outcome('unknown'), 200, ctx())).toMatchObject({
      action: 'final',
      status: 'failed',
    });
    expect(decide(outcome('unknown'), 200, ctx({ ownNumber: false }))).toMatchObject({
      action: 'final',
      status: 'in-doubt',
      doubt: 'no-answer',
    });
  });

  it('429 and 503 cannot have been processed; 500, 502 and 504 may have', () => {
    expect(mayHaveBeenDelivered(outcome('transient'), 429)).toBe(false);
    expect(mayHaveBeenDelivered(outcome('transient'), 503)).toBe(false);
    expect(mayHaveBeenDelivered(outcome('transient'), 500)).toBe(true);
    expect(mayHaveBeenDelivered(outcome('transient'), 504)).toBe(true);
    expect(mayHaveBeenDelivered(outcome('transient', { delivery: 'not-sent' }), undefined)).toBe(
      false,
    );
  });
});
