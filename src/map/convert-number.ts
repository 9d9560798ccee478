/**
 * ERP number text -> plain decimal text (`1.234.567,50` -> `1234567.50`) for
 * the policy functions in policy/amount.ts. Thousands separators are accepted
 * only in groups of three, so `1.5` under decimal comma is an error, not 15.
 */
import { canonicalDecimal, formatAmount, parseAmountLenient } from '../policy/amount.js';
import type { MappingFormat } from './mapping-types.js';

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const cache = new Map<string, RegExp>();
/** The last format asked for: one mapping's format object is asked for on every number of a file. */
let last:
  | {
      format: Pick<MappingFormat, 'decimal' | 'thousands'>;
      decimal: string;
      thousands: string;
      re: RegExp;
    }
  | undefined;

function patternOf(format: Pick<MappingFormat, 'decimal' | 'thousands'>): RegExp {
  if (
    last !== undefined &&
    last.format === format &&
    last.decimal === format.decimal &&
    last.thousands === format.thousands
  )
    return last.re;
  const re = numberPattern(format.decimal, format.thousands);
  last = { format, decimal: format.decimal, thousands: format.thousands, re };
  return re;
}

function numberPattern(decimal: string, thousands: string): RegExp {
  const id = `${decimal}|${thousands}`;
  let re = cache.get(id);
  if (re === undefined) {
    const d = escapeRe(decimal);
    const intPart =
      thousands === '' ? '\\d+' : `(?:\\d{1,3}(?:${escapeRe(thousands)}\\d{3})+|\\d+)`;
    re = new RegExp(`^([+-])?(${intPart})?(?:${d}(\\d+))?$`);
    cache.set(id, re);
  }
  return re;
}

/** `'1.234,5'` -> `'1234.5'`; undefined when the text is not a number in this format. */
export function erpNumberToPlain(
  text: string,
  format: Pick<MappingFormat, 'decimal' | 'thousands'>,
): string | undefined {
  const trimmed = text.trim();
  const t = trimmed.startsWith('$') ? trimmed.replace(/^\$\s*/, '') : trimmed;
  const m = patternOf(format).exec(t);
  if (m === null || (m[2] === undefined && m[3] === undefined)) return undefined;
  const digits = m[2] ?? '0';
  const int =
    format.thousands !== '' && digits.includes(format.thousands)
      ? digits.split(format.thousands).join('')
      : digits;
  const sign = m[1] === '-' ? '-' : '';
  return m[3] === undefined ? `${sign}${int}` : `${sign}${int}.${m[3]}`;
}

/** Two-decimal amount string, half-up (`'1.234,565'` -> `'1234.57'`). */
export function erpNumberToAmount(
  text: string,
  format: Pick<MappingFormat, 'decimal' | 'thousands'>,
): string | undefined {
  const plain = erpNumberToPlain(text, format);
  if (plain === undefined) return undefined;
  const cents = parseAmountLenient(plain);
  return cents === undefined ? undefined : formatAmount(cents);
}

/** The exact plain decimal when it has non-zero digits past the cent (`'0,125'` -> `'0.125'`), else undefined. */
export function erpNumberPastCents(
  text: string,
  format: Pick<MappingFormat, 'decimal' | 'thousands'>,
): string | undefined {
  const plain = erpNumberToPlain(text, format);
  const point = plain === undefined ? -1 : plain.indexOf('.');
  return point < 0 || !/[1-9]/.test(plain!.slice(point + 3)) ? undefined : canonicalDecimal(plain!);
}

/** Plain decimal keeping its precision, without superfluous zeros (`'2,50'` -> `'2.5'`). */
export function erpNumberToDecimal(
  text: string,
  format: Pick<MappingFormat, 'decimal' | 'thousands'>,
): string | undefined {
  const plain = erpNumberToPlain(text, format);
  return plain === undefined ? undefined : canonicalDecimal(plain);
}

/** Whole number (`'3'`, `'3,00'`); undefined when it has a fraction. */
export function erpNumberToInteger(
  text: string,
  format: Pick<MappingFormat, 'decimal' | 'thousands'>,
): string | undefined {
  const dec = erpNumberToDecimal(text, format);
  return dec === undefined || dec.includes('.') ? undefined : dec;
}

/**
 * Percentage, two decimals (`'19'` -> `'19.00'`, `'2,5%'` -> `'2.50'`). A rate
 * with more than two decimals is refused rather than silently rounded.
 */
export function erpNumberToPercent(
  text: string,
  format: Pick<MappingFormat, 'decimal' | 'thousands'>,
): string | undefined {
  const dec = erpNumberToDecimal(text.trim().replace(/\s*%$/, ''), format);
  if (dec === undefined || dec.startsWith('-')) return undefined;
  const [int, frac = ''] = dec.split('.');
  if (frac.length > 2) return undefined;
  return `${int}.${frac.padEnd(2, '0')}`;
}
