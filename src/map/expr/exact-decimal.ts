/**
 * Exact decimal arithmetic for mapping expressions: a value is bigint units at
 * a decimal scale (`12.50` = 1250 units, scale 2). Sums and products are exact;
 * a quotient is carried to DIVISION_SCALE decimals, half-up; rounding is half-up
 * in magnitude (away from zero), the rule of policy/amount.ts.
 */
import { parseDecimal } from '../../policy/amount.js';

export interface Exact {
  units: bigint;
  scale: number;
}

/** Decimals a quotient is carried to before the mapping rounds it. */
export const DIVISION_SCALE = 12;
/** Decimals a product may grow to before it is rounded (keeps bigint sizes bounded). */
const MAX_SCALE = 24;

export function exactOf(text: string): Exact | undefined {
  const d = parseDecimal(text.trim());
  return d === undefined ? undefined : { units: d.units, scale: d.scale };
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function align(a: Exact, b: Exact): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * pow10(scale - a.scale), b.units * pow10(scale - b.scale), scale];
}

function divHalfUp(numerator: bigint, denominator: bigint): bigint {
  const neg = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const q = n / d;
  const r = n % d;
  const rounded = r * 2n >= d ? q + 1n : q;
  return neg ? -rounded : rounded;
}

export function roundTo(a: Exact, places: number): Exact {
  if (a.scale <= places) return a;
  return { units: divHalfUp(a.units, pow10(a.scale - places)), scale: places };
}

export function add(a: Exact, b: Exact): Exact {
  const [x, y, scale] = align(a, b);
  return { units: x + y, scale };
}

export function sub(a: Exact, b: Exact): Exact {
  const [x, y, scale] = align(a, b);
  return { units: x - y, scale };
}

export function mul(a: Exact, b: Exact): Exact {
  return roundTo({ units: a.units * b.units, scale: a.scale + b.scale }, MAX_SCALE);
}

/** a / b to DIVISION_SCALE decimals, half-up; undefined when b is zero. */
export function div(a: Exact, b: Exact): Exact | undefined {
  if (b.units === 0n) return undefined;
  // a/b = (a.units / 10^a.scale) / (b.units / 10^b.scale); scaled to DIVISION_SCALE decimals
  const numerator = a.units * pow10(DIVISION_SCALE + b.scale);
  const denominator = b.units * pow10(a.scale);
  return { units: divHalfUp(numerator, denominator), scale: DIVISION_SCALE };
}

export function compare(a: Exact, b: Exact): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function negate(a: Exact): Exact {
  return { units: -a.units, scale: a.scale };
}

export function abs(a: Exact): Exact {
  return a.units < 0n ? negate(a) : a;
}

/** Plain text without superfluous zeros (`12.50` -> `12.5`, `-0` -> `0`). */
export function exactText(a: Exact): string {
  const neg = a.units < 0n;
  let digits = (neg ? -a.units : a.units).toString();
  if (a.scale > 0) {
    digits = digits.padStart(a.scale + 1, '0');
    const int = digits.slice(0, digits.length - a.scale);
    const frac = digits.slice(digits.length - a.scale).replace(/0+$/, '');
    digits = frac === '' ? int : `${int}.${frac}`;
  }
  return neg && digits !== '0' ? `-${digits}` : digits;
}
