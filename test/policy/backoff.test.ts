import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/faults.js';
import {
  backoffCap,
  backoffDelay,
  DEFAULT_MAX_RETRY_AFTER_MS,
  nextDelay,
} from '../../src/policy/backoff.js';

const opts = { baseDelayMs: 500, maxDelayMs: 60_000 };

describe('exponential backoff with full jitter', () => {
  it('doubles the cap per attempt from baseDelayMs up to maxDelayMs', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => backoffCap(n, opts))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000,
    ]);
    expect(backoffCap(0, opts)).toBe(500);
    expect(backoffCap(-3, opts)).toBe(500);
    expect(backoffCap(10_000, opts)).toBe(60_000);
    expect(backoffCap(Number.NaN, opts)).toBe(500);
  });

  it('draws each delay uniformly in [0, cap): random 0 gives 0, random near 1 gives cap - 1', () => {
    expect(backoffDelay(3, opts, () => 0)).toBe(0);
    expect(backoffDelay(3, opts, () => 0.5)).toBe(1000);
    expect(backoffDelay(3, opts, () => 0.9999999)).toBe(1999);
    expect(backoffDelay(3, opts, () => 1)).toBe(1999);
    expect(backoffDelay(30, opts, () => 0.9999999)).toBe(59_999);
  });

  it('never leaves the bounds over many random draws and attempts', () => {
    const random = mulberry32(42);
    for (let attempt = 1; attempt <= 40; attempt += 1) {
      const cap = backoffCap(attempt, opts);
      for (let i = 0; i < 200; i += 1) {
        const d = backoffDelay(attempt, opts, random);
        expect(Number.isInteger(d)).toBe(true);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(cap);
        expect(d).toBeLessThanOrEqual(opts.maxDelayMs);
      }
    }
  });

  it('spreads delays (jitter): the draws of one attempt are not all equal', () => {
    const random = mulberry32(7);
    const draws = new Set(Array.from({ length: 50 }, () => backoffDelay(6, opts, random)));
    expect(draws.size).toBeGreaterThan(40);
  });

  it('honours Retry-After: never less than it', () => {
    expect(nextDelay(1, opts, 3000, () => 0)).toBe(3000);
    expect(nextDelay(1, opts, 3000, () => 0.99)).toBe(3000);
    expect(nextDelay(8, opts, 1000, () => 0.5)).toBe(30_000);
    expect(nextDelay(1, opts, 1500.2, () => 0)).toBe(1501);
    const random = mulberry32(3);
    for (let i = 0; i < 500; i += 1)
      expect(nextDelay(1 + (i % 12), opts, 2000, random)).toBeGreaterThanOrEqual(2000);
  });

  it('caps an absurd Retry-After at a sane maximum', () => {
    expect(nextDelay(1, opts, 86_400_000, () => 0)).toBe(DEFAULT_MAX_RETRY_AFTER_MS);
    expect(nextDelay(1, { ...opts, maxRetryAfterMs: 120_000 }, 86_400_000, () => 0)).toBe(120_000);
    expect(nextDelay(1, { baseDelayMs: 1000, maxDelayMs: 3_600_000 }, 86_400_000, () => 0)).toBe(
      3_600_000,
    );
  });

  it('ignores a missing, zero, negative or non-finite Retry-After', () => {
    for (const ra of [undefined, 0, -5, Number.NaN, Infinity])
      expect(nextDelay(2, opts, ra, () => 0.5)).toBe(500);
  });
});
