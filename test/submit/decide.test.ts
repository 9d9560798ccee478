import { describe, expect, it } from 'vitest';
import { decide, mayHaveBeenDelivered, type DecideContext } from '../../src/submit/decide.js';
import type { Outcome } from '../../src/service/outcome.js';

const retry = { baseDelayMs: 500, maxDelayMs: 60_000, maxAttempts: 4 };
const ctx = (over: Partial<DecideContext> = {}): DecideContext => ({
  ownNumber: true, attempt: 1, maybeDeliveredBefore: false, retry, random: () => 0.5, ...over,
});
const outcome = (kind: Outcome['kind'], over: Partial<Outcome> = {}): Outcome => ({
  kind, messages: [], warnings: [], reason: kind, ...over,
});

describe('decide', () => {
  it('accepted, rejected and invalid are final', () => {
    expect(decide(outcome('accepted'), 200, ctx())).toEqual({ action: 'final', status: 'accepted' });
    expect(decide(outcome('rejected'), 200, ctx())).toEqual({ action: 'final', status: 'rejected' });
    expect(decide(outcome('invalid'), 400, ctx())).toEqual({ action: 'final', status: 'invalid' });
  });

  it('a repeated number is a duplicate when nothing of ours may have reached the service', () => {
    expect(decide(outcome('duplicate'), 200, ctx({ attempt: 2 }))).toEqual({ action: 'final', status: 'duplicate' });
  });

  it('a repeated number after a lost answer means our earlier attempt was accepted', () => {
    const d = decide(outcome('duplicate'), 200, ctx({ attempt: 2, maybeDeliveredBefore: true }));
    expect(d).toMatchObject({ action: 'final', status: 'accepted' });
    expect(d.action === 'final' && d.note).toMatch(/earlier attempt/);
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
    expect(decide(outcome('transient'), 502, ctx({ attempt: 4 }))).toMatchObject({ action: 'final', status: 'failed' });
  });

  it('a lost answer on a document with its own number is resent, remembering it may have been delivered', () => {
    const lost = outcome('transient', { delivery: 'maybe-sent', errorCode: 'ECONNRESET' });
    expect(decide(lost, undefined, ctx())).toMatchObject({ action: 'retry', maybeDelivered: true });
  });

  it('a lost answer on a document without its own number makes it in-doubt, never resent', () => {
    const lost = outcome('transient', { delivery: 'maybe-sent', errorCode: 'UND_ERR_SOCKET' });
    expect(decide(lost, undefined, ctx({ ownNumber: false }))).toMatchObject({ action: 'final', status: 'in-doubt' });
    expect(decide(outcome('transient'), 504, ctx({ ownNumber: false }))).toMatchObject({ action: 'final', status: 'in-doubt' });
  });

  it('an uncontrolled 500 or a 502 on a document without its own number makes it in-doubt; 429 and 503 are retried', () => {
    expect(decide(outcome('transient'), 500, ctx({ ownNumber: false }))).toMatchObject({ action: 'final', status: 'in-doubt' });
    expect(decide(outcome('transient'), 502, ctx({ ownNumber: false }))).toMatchObject({ action: 'final', status: 'in-doubt' });
    expect(decide(outcome('transient', { retryAfterMs: 1000 }), 429, ctx({ ownNumber: false }))).toMatchObject({ action: 'retry' });
    expect(decide(outcome('transient'), 503, ctx({ ownNumber: false }))).toMatchObject({ action: 'retry' });
  });

  it('a connection refused before sending is retried even without an own number', () => {
    const refused = outcome('transient', { delivery: 'not-sent', errorCode: 'ECONNREFUSED' });
    expect(decide(refused, undefined, ctx({ ownNumber: false }))).toMatchObject({ action: 'retry', maybeDelivered: false });
  });

  it('an unknown answer is failed with an own number and in-doubt without', () => {
    expect(decide(outcome('unknown'), 200, ctx())).toMatchObject({ action: 'final', status: 'failed' });
    expect(decide(outcome('unknown'), 200, ctx({ ownNumber: false }))).toMatchObject({ action: 'final', status: 'in-doubt' });
  });

  it('429 and 503 cannot have been processed; 500, 502 and 504 may have', () => {
    expect(mayHaveBeenDelivered(outcome('transient'), 429)).toBe(false);
    expect(mayHaveBeenDelivered(outcome('transient'), 503)).toBe(false);
    expect(mayHaveBeenDelivered(outcome('transient'), 500)).toBe(true);
    expect(mayHaveBeenDelivered(outcome('transient'), 504)).toBe(true);
    expect(mayHaveBeenDelivered(outcome('transient', { delivery: 'not-sent' }), undefined)).toBe(false);
  });
});
