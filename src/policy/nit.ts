/**
 * DIAN NIT check digit (modulo 11). Weights apply from the rightmost digit of
 * the number; a NIT has at most 15 digits because there are 15 weights.
 */
import { EdocError } from '../errors.js';

const WEIGHTS = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71] as const;

/** `'900123456'` -> `'8'`. Throws `EDOC_VALIDATE_NIT` unless the NIT is 1 to 15 digits. */
export function nitCheckDigit(nit: string): string {
  if (!/^\d{1,15}$/.test(nit)) {
    throw new EdocError(
      'EDOC_VALIDATE_NIT',
      `A NIT must be 1 to 15 digits: ${JSON.stringify(nit)}`,
      { value: nit },
    );
  }
  let sum = 0;
  for (let i = 0; i < nit.length; i += 1) {
    sum += Number(nit[nit.length - 1 - i]) * WEIGHTS[i];
  }
  const r = sum % 11;
  return String(r > 1 ? 11 - r : r);
}

/** The characters normaliseIdNumber drops or trims. */
const NORMALISED_AWAY = /[.\s-]/;

/**
 * `'900.123.456-8'` -> `'900123456'`: drops dots, spaces and dashes, and a
 * trailing `-DV` (a dash followed by one digit at the end) first, so the check
 * digit is not glued onto the number. Without a dash the last digit is kept:
 * a bare `9001234568` cannot be told apart from a longer NIT.
 */
export function normaliseIdNumber(value: string): string {
  // nothing to drop (the issuer's NIT, a number normalised already): several calls per document
  // (`\s` is what trim() removes)
  if (!NORMALISED_AWAY.test(value)) return value;
  const trimmed = value
    .trim()
    .replace(CHECK_DIGIT_SUFFIX, (m, offset: number) => (offset > 0 ? '' : m));
  return trimmed.replace(/[.\s-]/g, '');
}

/** A trailing `-DV`: a dash and one digit at the end (after the number, never the whole text). */
const CHECK_DIGIT_SUFFIX = /\s*-\s*(\d)\s*$/;

/**
 * The check digit a trailing `-DV` states (`'800.197.268-4'` -> `'4'`), the one normaliseIdNumber
 * drops; undefined when the text has none.
 */
export function statedCheckDigit(value: string): string | undefined {
  const trimmed = value.trim();
  const m = CHECK_DIGIT_SUFFIX.exec(trimmed);
  return m === null || m.index === 0 ? undefined : m[1];
}

/** True when `checkDigit` is the check digit of `nit` (after normalising it). */
export function isValidNitCheckDigit(nit: string, checkDigit: string): boolean {
  const n = normaliseIdNumber(nit);
  return /^\d{1,15}$/.test(n) && nitCheckDigit(n) === checkDigit.trim();
}

/** A lone digit after a space or a dot at the end of a number: `800197268 4`, `800.197.268.4`. */
const LOOSE_CHECK_DIGIT = /^(\d[\d.\s]*?)[.\s]+(\d)$/;

/** What an id written without letters reads as, when normaliseIdNumber alone would misread it. */
export type IdWriting =
  { id: string } | { code: 'EDOC_VALIDATE_CHECK_DIGIT' | 'EDOC_MAP_BAD_NUMBER'; message: string };

/**
 * An id written with digits, dots, spaces and dashes only, where gluing the pieces together would make
 * another number: a lone last digit after a space or a dot (no group of thousands has one digit) is a
 * check digit written without its dash, dropped when it is the number's (`800197268 4` -> 800197268)
 * and refused when not (`800197268.0` from a number cell is not the NIT 8001972680); a dash that is not
 * the final `-DV` (`800197268-04`) has two readings and is refused. Undefined: normaliseIdNumber reads it.
 */
export function looseIdWriting(value: string): IdWriting | undefined {
  const t = value.trim();
  if (!/^[\d.\s-]+$/.test(t)) return undefined;
  const loose = t.includes('-') ? null : LOOSE_CHECK_DIGIT.exec(t);
  if (loose !== null) {
    const id = loose[1].replace(/[.\s]/g, '');
    const digit = loose[2];
    const own = /^\d{1,15}$/.test(id) ? nitCheckDigit(id) : undefined;
    if (own === digit) return { id };
    return {
      code: 'EDOC_VALIDATE_CHECK_DIGIT',
      message: `ends in a lone digit ${digit} after a space or a dot, which is no group of thousands; as a check digit it is not ${id}'s${own === undefined ? '' : ` (${own})`}, and glued on it would be another number: write the number alone, or its check digit after a dash`,
    };
  }
  const rest = t.replace(CHECK_DIGIT_SUFFIX, (m, offset: number) => (offset > 0 ? '' : m));
  if (!rest.includes('-')) return undefined;
  return {
    code: 'EDOC_MAP_BAD_NUMBER',
    message:
      'has a dash inside the number: a check digit is one digit after a final dash (800197268-4), and glued together the pieces would be another number; write the number alone, or its check digit after a dash',
  };
}
