/**
 * Money as integer cents. The wire carries amounts as strings with exactly two
 * decimals; every computation here is integer (bigint where a product could pass
 * 2^53), so `19% of 0.05` is decided by the same rounding rule on every machine.
 * Rounding is half-up in magnitude (away from zero), the rule of the ERP layouts.
 */
import { EdocError } from '../errors.js';
import { excerpt } from './excerpt.js';

const STRICT_AMOUNT = /^-?\d+\.\d{2}$/;
const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?$/;

/** A decimal number held exactly: value = units / 10^scale. */
export interface Decimal {
  units: bigint;
  scale: number;
}

/** True when `value` is a string amount with exactly two decimals (`'1234.50'`, `'-3.00'`). */
export function isAmountString(value: unknown): value is string {
  return typeof value === 'string' && STRICT_AMOUNT.test(value);
}

/** `'1234.50'` -> 123450. Throws `EDOC_VALIDATE_AMOUNT` unless the text has exactly two decimals. */
export function parseAmount(text: string): number {
  const cents = tryParseAmount(text);
  if (cents === undefined) {
    throw new EdocError('EDOC_VALIDATE_AMOUNT', `Not an amount with two decimals: ${excerpt(JSON.stringify(text))}`, { value: excerpt(text) });
  }
  return cents;
}

/** Like `parseAmount` but answers `undefined` instead of throwing (also for non-strings). */
export function tryParseAmount(value: unknown): number | undefined {
  if (!isAmountString(value)) return undefined;
  const dec = parseDecimal(value);
  return dec === undefined ? undefined : toSafeNumber(dec.units);
}

/**
 * Lenient: a JS number (POS totals are numbers) or a decimal string with any
 * number of decimals (`'12.5'`, `'7'`, `'0.005'`), rounded half-up to the cent.
 * A number is read through its shortest decimal form, so 1.005 means 1.005 and
 * becomes 1.01 (not the 1.00 that float arithmetic would give).
 */
export function parseAmountLenient(value: number | string): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
    if (/e/i.test(text)) {
      if (Math.abs(value) >= 1e15) return undefined;
      text = value.toFixed(12);
    }
  } else {
    text = value.trim();
  }
  const dec = parseDecimal(text);
  if (dec === undefined) return undefined;
  return toSafeNumber(roundScaled(dec.units * 100n, 10n ** BigInt(dec.scale)));
}

/** 123450 -> `'1234.50'`; -5 -> `'-0.05'`. */
export function formatAmount(cents: number): string {
  if (!Number.isSafeInteger(cents)) {
    throw new EdocError('EDOC_VALIDATE_AMOUNT', `Not a whole number of cents: ${cents}`, { value: String(cents) });
  }
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100);
  const rest = abs % 100;
  return `${sign}${units}.${rest < 10 ? '0' : ''}${rest}`;
}

/**
 * `baseCents × percent / 100`, rounded half-up to the cent. The percentage is a
 * decimal string (`'19'`, `'19.00'`, `'2.50'`) read exactly, never as a float.
 */
export function mulRate(baseCents: number, ratePercent: string): number {
  const rate = parseDecimal(ratePercent.trim());
  if (rate === undefined) {
    throw new EdocError('EDOC_VALIDATE_AMOUNT', `Not a percentage: ${excerpt(JSON.stringify(ratePercent))}`, { value: excerpt(ratePercent) });
  }
  return toSafeNumber(roundScaled(BigInt(baseCents) * rate.units, 100n * 10n ** BigInt(rate.scale)));
}

/**
 * `a × b` of two decimal strings (quantity × unit price), in cents rounded half-up.
 * Undefined when either is not a plain decimal.
 */
export function mulDecimals(a: string, b: string): number | undefined {
  const x = parseDecimal(a.trim());
  const y = parseDecimal(b.trim());
  if (x === undefined || y === undefined) return undefined;
  return toSafeNumber(roundScaled(x.units * y.units * 100n, 10n ** BigInt(x.scale + y.scale)));
}

/** Sum of cents; throws when the total leaves the safe-integer range. */
export function sumAmounts(cents: readonly number[]): number {
  let total = 0n;
  for (const c of cents) total += BigInt(c);
  return toSafeNumber(total);
}

/** A decimal string (optional sign, optional fraction) held exactly; undefined when malformed. */
export function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const fraction = m[3] ?? '';
  const units = BigInt(m[2] + fraction);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

/** Canonical text of a decimal (`'19.00'` and `'19'` both give `'19'`), for grouping rates. */
export function canonicalDecimal(text: string): string | undefined {
  const dec = parseDecimal(text.trim());
  if (dec === undefined) return undefined;
  let { units, scale } = dec;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  if (scale === 0) return units.toString();
  const neg = units < 0n;
  const digits = (neg ? -units : units).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** True when the decimal text equals zero (`'0'`, `'0.00'`). */
export function isZeroDecimal(text: string): boolean {
  const dec = parseDecimal(text.trim());
  return dec !== undefined && dec.units === 0n;
}

/** numerator / denominator rounded half-up in magnitude (denominator > 0). */
function roundScaled(numerator: bigint, denominator: bigint): bigint {
  const neg = numerator < 0n;
  const abs = neg ? -numerator : numerator;
  let q = abs / denominator;
  if ((abs % denominator) * 2n >= denominator) q += 1n;
  return neg ? -q : q;
}

function toSafeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new EdocError('EDOC_VALIDATE_AMOUNT', 'Amount out of range', { value: value.toString() });
  }
  return Number(value);
}
