import { describe, expect, test } from 'vitest';
import { SecretScrubber } from '../../src/log/secrets.js';
import { EXCERPT_CHARS, excerpt, quoted } from '../../src/policy/excerpt.js';

describe('excerpt: the one way input is quoted back', () => {
  test('short text is kept as it is; long text is cut at 60 characters with … and its full length', () => {
    expect(excerpt('SETP990000101')).toBe('SETP990000101');
    expect(excerpt('x'.repeat(EXCERPT_CHARS))).toBe('x'.repeat(EXCERPT_CHARS));
    const long = 'a'.repeat(200_000_000 / 1000);
    expect(excerpt(long)).toBe(`${'a'.repeat(60)}… (200,000 characters)`);
    expect(excerpt('abcdef', 3)).toBe('abc… (6 characters)');
    expect(quoted('abcdef', 3)).toBe('"abc… (6 characters)"');
  });

  test('control characters are escaped, so an excerpt is always one line', () => {
    expect(excerpt('a\r\nb\tc\u0000d\u001be\u2028')).toBe('a\\r\\nb\\tc\\u0000d\\u001be\\u2028');
  });

  test('a cut never splits a surrogate pair; non-strings are shown as JSON', () => {
    expect(excerpt(`ab😀cd`, 3)).toBe('ab… (6 characters)');
    expect(excerpt({ a: 1 })).toBe('{"a":1}');
    expect(excerpt(12.5)).toBe('12.5');
    expect(excerpt(undefined)).toBe('');
  });
});

describe('SecretScrubber', () => {
  const key = 'sk_live_9fQ2xLm7Rt4ZpW8vNc3Kd6HyBj1SgAe5Uo0TiXr7MwYqPz2LnVb4Ch8Fs';

  test('removes a secret wherever it appears, JSON- and CSV-escaped forms included', () => {
    const scrubber = new SecretScrubber(['k"ey-0123456789', key]);
    expect(scrubber.scrub(`found: ${key}, and again ${key}`)).toBe(
      'found: [redacted], and again [redacted]',
    );
    expect(scrubber.scrub(JSON.stringify({ m: 'k"ey-0123456789' }))).toBe('{"m":"[redacted]"}');
    expect(scrubber.scrub('"k""ey-0123456789"')).toBe('"[redacted]"');
    expect(scrubber.has(`x${key}x`)).toBe(true);
    expect(scrubber.has('nothing here')).toBe(false);
  });

  test('removes the start of a secret that an excerpt cut off', () => {
    const scrubber = new SecretScrubber([key]);
    const cut = excerpt(`header: ${key}`);
    expect(cut).toContain(key.slice(0, 40));
    expect(scrubber.scrub(cut)).toBe(`header: [redacted]… (${8 + key.length} characters)`);
    // an ordinary word sharing the first characters is left alone when no … follows
    expect(scrubber.scrub(`${key.slice(0, 10)} and more`)).toBe(`${key.slice(0, 10)} and more`);
  });

  test('values shorter than 4 characters are not secrets (they would blank out ordinary text)', () => {
    expect(new SecretScrubber(['abc']).scrub('abc abc')).toBe('abc abc');
  });
});
