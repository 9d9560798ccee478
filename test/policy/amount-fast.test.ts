/**
 * The plain-number fast paths of policy/amount.ts (issue 16 item 7) give exactly what the bigint
 * arithmetic they bypass gives: the reference below is that arithmetic as it stood before, and both
 * run over every short decimal text and many random ones, signs, leading and trailing zeros included.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalDecimal,
  mulDecimals,
  mulRate,
  parseAmountLenient,
  tryParseAmount,
} from '../../src/policy/amount.js';

const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?$/;

function refParse(text: string): { units: bigint; scale: number } | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const fraction = m[3] ?? '';
  const units = BigInt(m[2] + fraction);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

function refSafe(value: bigint): number | 'throws' {
  return value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)
    ? 'throws'
    : Number(value);
}

function refRound(numerator: bigint, denominator: bigint): bigint {
  const neg = numerator < 0n;
  const abs = neg ? -numerator : numerator;
  let q = abs / denominator;
  if ((abs % denominator) * 2n >= denominator) q += 1n;
  return neg ? -q : q;
}

function refCanonical(text: string): string | undefined {
  const dec = refParse(text.trim());
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

function refLenient(text: string): number | undefined | 'throws' {
  const dec = refParse(text.trim());
  return dec === undefined
    ? undefined
    : refSafe(refRound(dec.units * 100n, 10n ** BigInt(dec.scale)));
}

function refTry(text: string): number | undefined | 'throws' {
  if (!/^-?\d+\.\d{2}$/.test(text)) return undefined;
  const dec = refParse(text);
  return dec === undefined ? undefined : refSafe(dec.units);
}

function refMulDecimals(a: string, b: string): number | undefined | 'throws' {
  const x = refParse(a.trim());
  const y = refParse(b.trim());
  if (x === undefined || y === undefined) return undefined;
  return refSafe(refRound(x.units * y.units * 100n, 10n ** BigInt(x.scale + y.scale)));
}

function refMulRate(baseCents: number, rate: string): number | 'throws' {
  const r = refParse(rate.trim());
  if (r === undefined) return 'throws';
  return refSafe(refRound(BigInt(baseCents) * r.units, 100n * 10n ** BigInt(r.scale)));
}

function outcome<T>(f: () => T): T | 'throws' {
  try {
    return f();
  } catch {
    return 'throws';
  }
}

/** Every text of up to `n` characters over the alphabet. */
function* allTexts(alphabet: string, n: number): Generator<string> {
  yield '';
  let layer = [''];
  for (let len = 1; len <= n; len++) {
    const next: string[] = [];
    for (const prefix of layer) for (const c of alphabet) next.push(prefix + c);
    yield* next;
    layer = next;
  }
}

/** Deterministic pseudo-random decimal texts: any sign, 1–20 integer digits, 0–6 decimals, runs of zeros. */
function* randomTexts(count: number): Generator<string> {
  let seed = 20261125;
  const next = (k: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % k;
  };
  const digits = (k: number): string =>
    Array.from({ length: k }, () => (next(3) === 0 ? '0' : String(next(10)))).join('');
  for (let i = 0; i < count; i++) {
    const sign = ['', '-', '+'][next(3)];
    const frac = next(4) === 0 ? '' : `.${digits(next(7))}`;
    yield `${next(8) === 0 ? ' ' : ''}${sign}${digits(1 + next(20))}${frac}`;
  }
}

const texts = [
  ...allTexts('0-.19', 6),
  ...randomTexts(10_000),
  '9007199254740991',
  '90071992547409.91',
  '9999999999999.99',
  '99999999999999.99',
  '-0.00',
  '-0',
  '+0.0',
  '0000.0000',
  '-00.10',
];

describe('the amount fast paths answer exactly what the bigint arithmetic answers', () => {
  it('canonicalDecimal', () => {
    for (const t of texts) expect([t, canonicalDecimal(t)]).toEqual([t, refCanonical(t)]);
  });

  it('parseAmountLenient (text), zero never negative', () => {
    for (const t of texts) {
      const got = outcome(() => parseAmountLenient(t));
      expect([t, got]).toEqual([t, refLenient(t)]);
      if (got === 0) expect(Object.is(got, -0)).toBe(false);
    }
  });

  it('tryParseAmount, zero never negative', () => {
    for (const t of texts) {
      const got = outcome(() => tryParseAmount(t));
      expect([t, got]).toEqual([t, refTry(t)]);
      if (got === 0) expect(Object.is(got, -0)).toBe(false);
    }
  });

  it('mulDecimals (quantity × unit price, in cents half-up)', () => {
    const some = texts.filter((_, i) => i % 7 === 0);
    for (let i = 0; i < some.length; i++) {
      const a = some[i];
      const b = some[(i * 31 + 7) % some.length];
      const got = outcome(() => mulDecimals(a, b));
      expect([a, b, got]).toEqual([a, b, refMulDecimals(a, b)]);
      if (got === 0) expect(Object.is(got, -0)).toBe(false);
    }
  });

  it('mulRate (cents × percent, half-up)', () => {
    const rates = [
      '19',
      '19.00',
      '5',
      '0',
      '-0',
      '2.5',
      '0.001',
      '16.6667',
      '100',
      '-19',
      '33.333333',
      '999999999999999',
    ];
    const bases = [
      0,
      1,
      -1,
      5,
      -5,
      50,
      249,
      250,
      251,
      123456789,
      -987654321,
      2 ** 45,
      2 ** 52,
      Number.MAX_SAFE_INTEGER,
    ];
    for (const rate of [...rates, ...texts.filter((_, i) => i % 97 === 0)]) {
      for (const base of bases) {
        const got = outcome(() => mulRate(base, rate));
        expect([base, rate, got]).toEqual([base, rate, refMulRate(base, rate)]);
        if (got === 0) expect(Object.is(got, -0)).toBe(false);
      }
    }
  });
});
