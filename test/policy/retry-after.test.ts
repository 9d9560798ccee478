import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/policy/retry-after.js';

const now = Date.parse('2026-11-22T12:00:00Z');

describe('Retry-After parsing', () => {
  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfter('1', now)).toBe(1000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter(['5', '9'], now)).toBe(5000);
  });

  it('reads an IMF-fixdate relative to now, 0 when already past', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:59:00 GMT', now)).toBe(0);
  });

  it('reads the obsolete RFC 850 and asctime date forms', () => {
    expect(parseRetryAfter('Sunday, 22-Nov-26 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Sun Nov 22 12:00:10 2026', now)).toBe(10_000);
  });

  it('answers undefined for anything else', () => {
    for (const bad of [
      undefined,
      null,
      '',
      '  ',
      '-1',
      '1.5',
      'soon',
      '2026-11-22',
      'Mon, 99 Foo 2026 00:00:00 GMT',
    ]) {
      expect(parseRetryAfter(bad, now), String(bad)).toBeUndefined();
    }
    expect(parseRetryAfter([], now)).toBeUndefined();
  });
});
