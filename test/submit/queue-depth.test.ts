import { describe, expect, it } from 'vitest';
import { COMPANY_SENDER_DEFAULTS, queueDepth } from '../../src/submit/company-sender.js';

describe('queueDepth (documents claimed and marked ahead per company)', () => {
  it('stays 4C where the rate binds (the default rate, a rate-limited company)', () => {
    expect(queueDepth({ requestsPerSecond: 5, concurrency: 4 })).toBe(16);
    expect(queueDepth({ requestsPerSecond: 40, concurrency: 4 })).toBe(16);
    expect(queueDepth({ requestsPerSecond: 100, concurrency: 2 })).toBe(10);
  });

  it('follows the tuning: queuedPerConnection, queueAheadMs and maxQueuedPerConnection', () => {
    const tuning = { queuedPerConnection: 2, maxQueuedPerConnection: 3, queueAheadMs: 1_000 };
    expect(queueDepth({ requestsPerSecond: 1, concurrency: 4 }, tuning)).toBe(8);
    expect(queueDepth({ requestsPerSecond: 10, concurrency: 4 }, tuning)).toBe(10);
    expect(queueDepth({ requestsPerSecond: 1_000, concurrency: 4 }, tuning)).toBe(12);
  });

  it('grows to what the rate sends in 100 ms where that is more, at most 16C', () => {
    expect(queueDepth({ requestsPerSecond: 500, concurrency: 8 })).toBe(50);
    expect(queueDepth({ requestsPerSecond: 100_000, concurrency: 8 })).toBe(128);
    expect(queueDepth({ requestsPerSecond: 100_000, concurrency: 1 })).toBe(16);
  });

  it('the defaults are the documented ones', () => {
    expect(queueDepth({ requestsPerSecond: 5, concurrency: 4 }, COMPANY_SENDER_DEFAULTS)).toBe(16);
  });
});
