import { describe, expect, it } from 'vitest';
import {
  canonicalDecimal,
  formatAmount,
  isAmountString,
  mulDecimals,
  mulRate,
  parseAmount,
  parseAmountLenient,
  sumAmounts,
  tryParseAmount,
} from '../../src/policy/amount.js';
import { isEdocError } from '../../src/errors.js';

describe('amounts as integer cents', () => {
  it('parses strict two-decimal amounts', () => {
    expect(parseAmount('1234.50')).toBe(123450);
    expect(parseAmount('0.05')).toBe(5);
    expect(parseAmount('0.00')).toBe(0);
    expect(parseAmount('-3.10')).toBe(-310);
    expect(parseAmount('90071992547409.91')).toBe(9007199254740991);
  });

  it('rejects amounts without exactly two decimals with EDOC_VALIDATE_AMOUNT', () => {
    for (const bad of [
      '1234.5',
      '1234',
      '1234.500',
      '1,234.50',
      ' 1.00',
      '1.00 ',
      '',
      '.50',
      '1e3',
      'abc',
    ]) {
      expect(tryParseAmount(bad), bad).toBeUndefined();
      expect(isAmountString(bad), bad).toBe(false);
      let caught: unknown;
      try {
        parseAmount(bad);
      } catch (err) {
        caught = err;
      }
      expect(isEdocError(caught, 'EDOC_VALIDATE_AMOUNT'), bad).toBe(true);
    }
    expect(tryParseAmount(12.5)).toBeUndefined();
    expect(() => parseAmount('90071992547409.92')).toThrow(/out of range/);
  });

  it('formats cents back to two decimals, with the sign in front', () => {
    expect(formatAmount(123450)).toBe('1234.50');
    expect(formatAmount(5)).toBe('0.05');
    expect(formatAmount(0)).toBe('0.00');
    expect(formatAmount(-5)).toBe('-0.05');
    expect(formatAmount(-123401)).toBe('-1234.01');
    expect(() => formatAmount(1.5)).toThrow();
    for (const text of ['0.01', '10.10', '99999999.99', '-7.70'])
      expect(formatAmount(parseAmount(text))).toBe(text);
  });

  it('reads numbers and loose decimals leniently, rounding half-up away from zero', () => {
    expect(parseAmountLenient(1234.5)).toBe(123450);
    expect(parseAmountLenient(1.005)).toBe(101);
    expect(parseAmountLenient(0.005)).toBe(1);
    expect(parseAmountLenient(0.004999)).toBe(0);
    expect(parseAmountLenient(-0.005)).toBe(-1);
    expect(parseAmountLenient(7)).toBe(700);
    expect(parseAmountLenient(1e-7)).toBe(0);
    expect(parseAmountLenient('12.345')).toBe(1235);
    expect(parseAmountLenient(' 12.344 ')).toBe(1234);
    expect(parseAmountLenient('12.')).toBe(1200);
    expect(parseAmountLenient(Number.NaN)).toBeUndefined();
    expect(parseAmountLenient(Infinity)).toBeUndefined();
    expect(parseAmountLenient('12,50')).toBeUndefined();
  });

  it('applies a percentage half-up to the cent: 19% of 0.05 is 0.01', () => {
    expect(mulRate(5, '19')).toBe(1); // 0.0095 -> 0.01
    expect(mulRate(5, '19.00')).toBe(1);
    expect(mulRate(2, '19.00')).toBe(0); // 0.0038 -> 0.00
    expect(mulRate(1050, '19.00')).toBe(200); // 1.995 -> 2.00
    expect(mulRate(100000000, '19.00')).toBe(19000000);
    expect(mulRate(3703701, '5.00')).toBe(185185); // 1851.8505 -> 1851.85
    expect(mulRate(-1050, '19.00')).toBe(-200); // away from zero
    expect(mulRate(12345, '0.00')).toBe(0);
  });

  it('handles fractional percentages exactly, without float drift', () => {
    expect(mulRate(100000000, '2.50')).toBe(2500000); // 2.5% of 1,000,000.00
    expect(mulRate(20000000, '2.50')).toBe(500000);
    expect(mulRate(20, '2.50')).toBe(1); // 0.005 -> 0.01
    expect(mulRate(19, '2.50')).toBe(0); // 0.00475 -> 0.00
    expect(mulRate(19000000, '15.00')).toBe(2850000);
    expect(mulRate(1000, '0.414')).toBe(4); // 0.0414 -> 0.04
    expect(mulRate(1000, '11.04')).toBe(110); // 1.104 -> 1.10; 11.04 is not exact in binary
    expect(mulRate(Number.MAX_SAFE_INTEGER, '1')).toBe(90071992547410); // bigint inside: no overflow
    expect(() => mulRate(100, '19%')).toThrow();
  });

  it('multiplies quantity by unit price to the cent', () => {
    expect(mulDecimals('3.00', '12345.67')).toBe(3703701);
    expect(mulDecimals('0.5', '0.01')).toBe(1); // 0.005 -> 0.01
    expect(mulDecimals('0.333', '10.00')).toBe(333);
    expect(mulDecimals('2', 'x')).toBeUndefined();
  });

  it('sums cents and canonicalises rates', () => {
    expect(sumAmounts([])).toBe(0);
    expect(sumAmounts([5, 10, -3])).toBe(12);
    expect(() => sumAmounts([Number.MAX_SAFE_INTEGER, 1])).toThrow();
    expect(canonicalDecimal('19.00')).toBe('19');
    expect(canonicalDecimal('2.50')).toBe('2.5');
    expect(canonicalDecimal('0.00')).toBe('0');
    expect(canonicalDecimal('0.05')).toBe('0.05');
    expect(canonicalDecimal('x')).toBeUndefined();
  });
});
