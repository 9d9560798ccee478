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
    throw new EdocError(
      'EDOC_VALIDATE_AMOUNT',
      `Not an amount with two decimals: ${excerpt(JSON.stringify(text))}`,
      { value: excerpt(text) },
    );
  }
  return cents;
}

/** Like `parseAmount` but answers `undefined` instead of throwing (also for non-strings). */
export function tryParseAmount(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const fast = amountCents(value);
  if (fast !== undefined) return fast;
  if (!STRICT_AMOUNT.test(value)) return undefined;
  const dec = parseDecimal(value);
  return dec === undefined ? undefined : toSafeNumber(dec.units);
}

/**
 * Digits an integer may have and still be exact in a double with room to spare: the fast paths below
 * stay under 10^15, far inside Number.MAX_SAFE_INTEGER; longer text takes the bigint path.
 */
const FAST_DIGITS = 15;

/**
 * Cents of an amount text (`-?digits.dd`, STRICT_AMOUNT) of at most FAST_DIGITS digits, read in one
 * pass over its characters; undefined for any other text, which `tryParseAmount` then tests and reads
 * the long way. Amounts are read a dozen times per document (totals, taxes, lines): the two regular
 * expressions this replaces were a twentieth of the intake worker's time.
 */
function amountCents(text: string): number | undefined {
  const n = text.length;
  const start = text.charCodeAt(0) === 45 ? 1 : 0; // '-'
  if (n - start < 4 || n - start > FAST_DIGITS || text.charCodeAt(n - 3) !== 46) return undefined; // '.'
  let cents = 0;
  for (let i = start; i < n; i++) {
    if (i === n - 3) continue;
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    cents = cents * 10 + digit;
  }
  // never -0: the bigint path gives 0 for '-0.00'
  return start === 1 && cents !== 0 ? -cents : cents;
}

/**
 * Cents of a decimal text with at most two decimals and at most FAST_DIGITS digits, in plain number
 * arithmetic (exact there: no rounding is needed); undefined for anything else, which the callers
 * then read through the bigint path. Amounts are read a dozen times per document, so this is hot.
 */
function smallCents(text: string): number | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const int = m[2];
  const fraction = m[3] ?? '';
  if (fraction.length > 2 || int.length + 2 > FAST_DIGITS) return undefined;
  const cents =
    Number(int) * 100 +
    (fraction === '' ? 0 : fraction.length === 1 ? Number(fraction) * 10 : Number(fraction));
  // never -0: the bigint path gives 0 for '-0.00'
  return m[1] === '-' && cents !== 0 ? -cents : cents;
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
  const fast = smallCents(text);
  if (fast !== undefined) return fast;
  const dec = parseDecimal(text);
  if (dec === undefined) return undefined;
  return toSafeNumber(roundScaled(dec.units * 100n, 10n ** BigInt(dec.scale)));
}

/** 123450 -> `'1234.50'`; -5 -> `'-0.05'`. */
export function formatAmount(cents: number): string {
  if (!Number.isSafeInteger(cents)) {
    throw new EdocError('EDOC_VALIDATE_AMOUNT', `Not a whole number of cents: ${cents}`, {
      value: String(cents),
    });
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
  const small = smallDecimal(ratePercent.trim());
  if (small !== undefined && Number.isSafeInteger(baseCents)) {
    const product = Math.abs(baseCents) * small.units;
    if (product <= FAST_PRODUCT)
      return signed(
        baseCents < 0 !== small.negative,
        divideHalfUp(product, 100 * 10 ** small.scale),
      );
  }
  const rate = parseDecimal(ratePercent.trim());
  if (rate === undefined) {
    throw new EdocError(
      'EDOC_VALIDATE_AMOUNT',
      `Not a percentage: ${excerpt(JSON.stringify(ratePercent))}`,
      { value: excerpt(ratePercent) },
    );
  }
  return toSafeNumber(
    roundScaled(BigInt(baseCents) * rate.units, 100n * 10n ** BigInt(rate.scale)),
  );
}

/**
 * `a × b` of two decimal strings (quantity × unit price), in cents rounded half-up.
 * Undefined when either is not a plain decimal.
 */
export function mulDecimals(a: string, b: string): number | undefined {
  const sx = smallDecimal(a.trim());
  const sy = sx === undefined ? undefined : smallDecimal(b.trim());
  if (sx !== undefined && sy !== undefined) {
    const product = sx.units * sy.units;
    if (product <= FAST_PRODUCT / 100)
      return signed(
        sx.negative !== sy.negative,
        divideHalfUp(product * 100, 10 ** (sx.scale + sy.scale)),
      );
  }
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

/** Products up to this are exact in a double, and so is everything derived from them below. */
const FAST_PRODUCT = 2 ** 52;

/** A decimal text of at most FAST_DIGITS digits as a plain number of units (exact); undefined otherwise. */
function smallDecimal(
  text: string,
): { units: number; scale: number; negative: boolean } | undefined {
  const at = decimalParts(text);
  if (at === undefined) return undefined;
  const scale = at.point === at.end ? 0 : at.end - at.point - 1;
  if (at.point - at.from + scale > FAST_DIGITS) return undefined;
  let units = 0;
  for (let i = at.from; i < at.end; i++)
    if (i !== at.point) units = units * 10 + text.charCodeAt(i) - 48;
  return { units, scale, negative: at.negative };
}

/**
 * Where the parts of a decimal text (DECIMAL: optional sign, digits, optional point and digits) are,
 * found in one pass over its characters: the integer digits are `[from, point)`, the fraction's
 * `(point, end)`, and `point === end` when there is no point. Undefined for any other text. Rates and
 * quantities are read several times per line of every document: the regular expression's match was
 * a quarter of the totals rule's time.
 */
function decimalParts(
  text: string,
): { negative: boolean; from: number; point: number; end: number } | undefined {
  const end = text.length;
  const sign = text.charCodeAt(0);
  const from = sign === 45 || sign === 43 ? 1 : 0; // '-', '+'
  let point = end;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && point === end)
      point = i; // the one '.'
    else if (c < 48 || c > 57) return undefined;
  }
  // no digit before the point (or none at all)
  return point === from ? undefined : { negative: sign === 45, from, point, end };
}

/** numerator / denominator rounded half-up, both whole, non-negative and exact in a double. */
function divideHalfUp(numerator: number, denominator: number): number {
  const rest = numerator % denominator;
  const q = (numerator - rest) / denominator;
  return rest * 2 >= denominator ? q + 1 : q;
}

/** `value` negated when `negative`, never -0 (the bigint arithmetic has no negative zero). */
function signed(negative: boolean, value: number): number {
  return negative && value !== 0 ? -value : value;
}

/** A decimal string (optional sign, optional fraction) held exactly; undefined when malformed. */
export function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const fraction = m[3] ?? '';
  const units = BigInt(m[2] + fraction);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

/**
 * Canonical text of a decimal (`'19.00'` and `'19'` both give `'19'`), for grouping rates: no sign
 * but `-`, no leading zeros but the one before the point, no trailing zeros after it, and no sign on
 * zero. Text work only (it was bigint arithmetic; the same results, test/policy/amount-fast.test.ts).
 */
export function canonicalDecimal(text: string): string | undefined {
  const trimmed = text.trim();
  const at = decimalParts(trimmed);
  if (at === undefined) return undefined;
  // leading zeros but the one before the point, trailing zeros after it (with the point when all are)
  let from = at.from;
  while (from < at.point - 1 && trimmed.charCodeAt(from) === 48) from++;
  let end = at.end;
  while (end > at.point + 1 && trimmed.charCodeAt(end - 1) === 48) end--;
  if (end === at.point + 1) end = at.point;
  if (end === from + 1 && trimmed.charCodeAt(from) === 48) return '0';
  const digits = trimmed.slice(from, end);
  return at.negative ? `-${digits}` : digits;
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
