import { describe, expect, it } from 'vitest';
import {
  isValidNitCheckDigit,
  looseIdWriting,
  nitCheckDigit,
  normaliseIdNumber,
  statedCheckDigit,
} from '../../src/policy/nit.js';
import { isEdocError } from '../../src/errors.js';

describe('DIAN NIT check digit (modulo 11)', () => {
  it.each([
    ['900123456', '8'],
    ['800197268', '4'],
    ['860002964', '4'],
    ['890900608', '9'],
    ['830122566', '1'],
    ['830045123', '2'],
  ])('NIT %s has check digit %s', (nit, digit) => {
    expect(nitCheckDigit(nit)).toBe(digit);
  });

  it('gives r itself when the remainder is 0 or 1', () => {
    // 1 × 3 = 3 -> 11 - 3 = 8; 11 → digits 1,1: 3 + 7 = 10 -> 1; 4 → 12 mod 11 = 1 -> 1; 0 -> 0.
    expect(nitCheckDigit('1')).toBe('8');
    expect(nitCheckDigit('11')).toBe('1');
    expect(nitCheckDigit('4')).toBe('1');
    expect(nitCheckDigit('0')).toBe('0');
  });

  it('weights every one of 15 digits and refuses more', () => {
    expect(nitCheckDigit('100000000000000')).toBe(String(11 - (71 % 11)));
    let caught: unknown;
    try {
      nitCheckDigit('1000000000000000');
    } catch (err) {
      caught = err;
    }
    expect(isEdocError(caught, 'EDOC_VALIDATE_NIT')).toBe(true);
    expect(() => nitCheckDigit('900.123.456')).toThrow();
    expect(() => nitCheckDigit('')).toThrow();
  });

  it('normalises an id number: dots, dashes, spaces and a trailing -DV go', () => {
    expect(normaliseIdNumber('900.123.456-8')).toBe('900123456');
    expect(normaliseIdNumber('900123456 - 8')).toBe('900123456');
    expect(normaliseIdNumber(' 900 123 456 ')).toBe('900123456');
    expect(normaliseIdNumber('900123456')).toBe('900123456');
    expect(normaliseIdNumber('9001234568')).toBe('9001234568');
    expect(normaliseIdNumber('1-234-567')).toBe('1234567');
  });

  it('reads the check digit a trailing -DV states, the one normalising drops', () => {
    expect(statedCheckDigit('900.123.456-8')).toBe('8');
    expect(statedCheckDigit(' 900123456 - 8 ')).toBe('8');
    expect(statedCheckDigit('900123456')).toBeUndefined();
    expect(statedCheckDigit('9001234568')).toBeUndefined();
    expect(statedCheckDigit('1-234-567')).toBeUndefined();
    expect(statedCheckDigit('-8')).toBeUndefined();
  });

  it('checks a NIT against its digit after normalising', () => {
    expect(isValidNitCheckDigit('900.123.456', '8')).toBe(true);
    expect(isValidNitCheckDigit('900123456', '7')).toBe(false);
    expect(isValidNitCheckDigit('ABC', '1')).toBe(false);
  });
});

describe('an id whose pieces, glued together, would be another number (looseIdWriting)', () => {
  it('reads a lone last digit after a space or a dot as the check digit, kept only when it is the right one', () => {
    expect(looseIdWriting('800197268 4')).toEqual({ id: '800197268' });
    expect(looseIdWriting(' 800.197.268.4 ')).toEqual({ id: '800197268' });
    // a number cell read as 800197268.0: not the NIT 8001972680
    expect(looseIdWriting('800197268.0')).toMatchObject({ code: 'EDOC_VALIDATE_CHECK_DIGIT' });
    expect(looseIdWriting('800197268 5')).toMatchObject({ code: 'EDOC_VALIDATE_CHECK_DIGIT' });
  });

  it('refuses a dash that is not the final -DV', () => {
    expect(looseIdWriting('800197268-04')).toMatchObject({ code: 'EDOC_MAP_BAD_NUMBER' });
    expect(looseIdWriting('800-197-268-4')).toMatchObject({ code: 'EDOC_MAP_BAD_NUMBER' });
  });

  it('leaves the writings normaliseIdNumber reads alone', () => {
    for (const v of [
      '800.197.268-4',
      '800 197 268-4',
      '1.020.304.050',
      '1 020 304 050',
      '1020304050',
      'E-456789',
      'AB123456',
    ])
      expect(looseIdWriting(v), v).toBeUndefined();
  });
});
