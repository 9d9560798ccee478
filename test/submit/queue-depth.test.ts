import { describe, expect, it } from 'vitest';
import { queueDepth } from '../../src/submit/company-sender.js';
import { VERDICT_WAIT_MS } from '../../src/submit/submission-commits.js';

describe('queueDepth (documents claimed and marked ahead per company)', () => {
  it('stays 4C where the rate binds (the default rate, a rate-limited company)', () => {
    expect(queueDepth({ requestsPerSecond: 5, concurrency: 4 })).toBe(16);
    expect(queueDepth({ requestsPerSecond: 40, concurrency: 4 })).toBe(16);
    expect(queueDepth({ requestsPerSecond: 100, concurrency: 2 })).toBe(10);
  });

  it('grows to what the rate sends in 100 ms where that is more, at most 16C', () => {
    expect(queueDepth({ requestsPerSecond: 500, concurrency: 8 })).toBe(50);
    expect(queueDepth({ requestsPerSecond: 100_000, concurrency: 8 })).toBe(128);
    expect(queueDepth({ requestsPerSecond: 100_000, concurrency: 1 })).toBe(16);
  });

  it('verdicts of numbered documents wait at most 100 ms for a batch of marks', () => {
    expect(VERDICT_WAIT_MS).toBe(100);
  });
});
