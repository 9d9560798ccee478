import { describe, expect, test } from 'vitest';
import { REDACTED } from '../../src/log/redact.js';
import { SecretScrubber } from '../../src/log/secrets.js';

// 300 companies' keys, many sharing their first characters: the scrubber looks for all of them in one pass
const keys = Array.from(
  { length: 300 },
  (_, i) => `key-${String(i).padStart(3, '0')}-0123456789abcdef`,
);

describe('SecretScrubber with many keys', () => {
  const scrubber = new SecretScrubber(keys);

  test('any one key is removed wherever it is, each time it appears', () => {
    const line = `{"msg":"sent","note":"a ${keys[250]} b ${keys[250]}","other":"${keys[7]}"}`;
    expect(scrubber.scrub(line)).toBe(
      `{"msg":"sent","note":"a ${REDACTED} b ${REDACTED}","other":"${REDACTED}"}`,
    );
  });

  test('a text with no key, or only the shared start of the keys, comes back as it was', () => {
    const text = 'key-2 and key-25 are not keys; nor is key-250-01234';
    expect(scrubber.scrub(text)).toBe(text);
    expect(scrubber.has(text)).toBe(false);
  });

  test('the cut-off start of a key (an excerpt ending in …) is removed', () => {
    expect(scrubber.scrub(`raw: ${keys[299].slice(0, 12)}…`)).toBe(`raw: ${REDACTED}…`);
  });

  test('a key added later, with a quote, is removed as written, JSON-escaped and CSV-escaped', () => {
    const s = new SecretScrubber(keys);
    s.add('late"secret-value');
    expect(s.scrub('a late"secret-value b')).toBe(`a ${REDACTED} b`);
    expect(s.scrub('a late\\"secret-value b')).toBe(`a ${REDACTED} b`);
    expect(s.scrub('a late""secret-value b')).toBe(`a ${REDACTED} b`);
  });

  test('a key at the very end or start of the text, and a text shorter than a key', () => {
    expect(scrubber.scrub(`${keys[0]}`)).toBe(REDACTED);
    expect(scrubber.scrub(`x${keys[1]}`)).toBe(`x${REDACTED}`);
    expect(scrubber.scrub('key')).toBe('key');
    expect(scrubber.scrub('')).toBe('');
  });
});
