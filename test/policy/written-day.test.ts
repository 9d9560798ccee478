import { describe, expect, it } from 'vitest';
import { writtenDay } from '../../src/policy/dates.js';

describe('writtenDay: the calendar day a timestamp is written on', () => {
  it.each([
    ['Tue, 31 Mar 2026 00:00:00 GMT', '2026-03-31'],
    ['Tue, 31 Mar 2026 23:59:59 -0500', '2026-03-31'],
    ['Wed, 01 Apr 2026 00:30:00 +0100', '2026-04-01'],
    ['1 Apr 2026 10:00:00 GMT', '2026-04-01'],
    ['2026-03-15', '2026-03-15'],
    ['2026-03-15Z', '2026-03-15'],
    ['2026-03-31T23:59:59-05:00', '2026-03-31'],
    ['2026-13-45', undefined],
    ['Mon, 30 Feb 2026 00:00:00 GMT', undefined],
    ['not a date', undefined],
    ['', undefined],
  ])('%s -> %s', (text, day) => {
    expect(writtenDay(text)).toBe(day);
  });
});
