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

describe('SecretScrubber with many keys of different starts', () => {
  // 200 keys whose first four characters differ (the scan looks at a position only when a key could start
  // there), one of four characters only, and some outside ASCII
  const varied = [
    ...Array.from(
      { length: 200 },
      (_, i) => `${String.fromCharCode(65 + (i % 26))}${i}x-secret-${i}`,
    ),
    'ñandú-clave-1',
    '🔑key🔑-2',
    'abcd',
  ];
  const scrubber = new SecretScrubber(varied);

  test('each is removed at the start, in the middle and at the very end of a text', () => {
    for (const key of [varied[0], varied[137], varied[199], 'ñandú-clave-1', '🔑key🔑-2', 'abcd']) {
      expect(scrubber.scrub(`${key} mid ${key} end ${key}`)).toBe(
        `${REDACTED} mid ${REDACTED} end ${REDACTED}`,
      );
    }
  });

  test('the start of a key without its rest is left alone', () => {
    const text = 'A0x-secre ñandú-clav 🔑key abc A0x-secret-';
    expect(scrubber.scrub(text)).toBe(text);
  });

  test('a cut-off start of a key outside ASCII is removed', () => {
    expect(scrubber.scrub('raw: ñandú-cla…')).toBe(`raw: ${REDACTED}…`);
  });
});

describe('SecretScrubber with many keys: every place a key can start', () => {
  // a short password among many long keys: the scan looks at every `length - 3`-th position of a text
  // for a key of 4 to 8 characters, every fifth for longer ones (a cut-off start is 8 characters)
  const odd = ['pw4!', 'pw5!!', 'pw6!!!', 'pw7!!!!', 'pw8!!!!!', 'pw9!!!!!!', 'pw12!!!!!!!!'];
  const long = 'LONG-0123456789-abcdefghij-XYZ';
  const others = Array.from({ length: 200 }, (_, i) => `other-${i}-key-0123456789`);

  for (const key of [...odd, long]) {
    test(`${key.length} characters: found at each of 12 offsets, whole and (longer than 8) cut off`, () => {
      for (const set of [
        [key, ...others],
        [...others, key],
      ]) {
        const scrubber = new SecretScrubber(set);
        for (let offset = 0; offset < 12; offset++) {
          const before = '.'.repeat(offset);
          expect(scrubber.scrub(`${before}${key} tail`)).toBe(`${before}${REDACTED} tail`);
          expect(scrubber.scrub(`${before}${key}`)).toBe(`${before}${REDACTED}`);
          for (let cut = 8; cut < key.length; cut++)
            expect(scrubber.scrub(`${before}${key.slice(0, cut)}…`)).toBe(`${before}${REDACTED}…`);
        }
      }
    });
  }

  test('with only keys of 8 characters or more, a text with none of them comes back as it was', () => {
    const scrubber = new SecretScrubber([long, ...others]);
    const text = `LONG-0123 other-1-ke ${'.'.repeat(50)} LONG-01…`;
    expect(scrubber.scrub(text)).toBe(text);
  });
});

describe('SecretScrubber with many keys: a text with no cut-off start is looked at more sparsely', () => {
  // with no `…` in a text only a whole key can match, so the scan steps by the shortest key's length - 3
  const keys24 = Array.from(
    { length: 200 },
    (_, i) => `bench-key-${String(i).padStart(4, '0')}-abcdefghi`,
  );
  // longer than the 64 characters a key is indexed by for that scan
  const long = `L${'0123456789'.repeat(10)}`;

  for (const key of [keys24[0], keys24[137], long]) {
    test(`a key of ${key.length} characters: found at each of 70 offsets, with and without a … elsewhere`, () => {
      const scrubber = new SecretScrubber([...keys24, long]);
      for (let offset = 0; offset < 70; offset++) {
        const before = 'x'.repeat(offset);
        expect(scrubber.scrub(`${before}${key} tail`)).toBe(`${before}${REDACTED} tail`);
        expect(scrubber.has(`${before}${key}`)).toBe(true);
        expect(scrubber.scrub(`…${before}${key} tail`)).toBe(`…${before}${REDACTED} tail`);
      }
    });
  }

  test('a cut-off start still counts where the text has a …, and a text with none of the keys is left alone', () => {
    const scrubber = new SecretScrubber([...keys24, long]);
    for (let offset = 0; offset < 30; offset++) {
      const before = 'x'.repeat(offset);
      expect(scrubber.scrub(`${before}${long.slice(0, 70)}…`)).toBe(`${before}${REDACTED}…`);
      expect(scrubber.scrub(`${before}${keys24[5].slice(0, 9)}…`)).toBe(`${before}${REDACTED}…`);
    }
    const text = `bench-key-0005-abcdefgh ${long.slice(0, 90)} ${'.'.repeat(40)}`;
    expect(scrubber.scrub(text)).toBe(text);
  });
});
