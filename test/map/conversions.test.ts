import { describe, expect, it } from 'vitest';
import { erpDateToIso, erpTimeToIso } from '../../src/map/convert-date.js';
import {
  erpNumberToAmount,
  erpNumberToDecimal,
  erpNumberToInteger,
  erpNumberToPercent,
} from '../../src/map/convert-number.js';
import { LastRowTable } from '../../src/read/csv-last-rows.js';
import { sniffDelimiter } from '../../src/read/csv-encoding.js';

const comma = { decimal: ',', thousands: '.' } as const;
const point = { decimal: '.', thousands: ',' } as const;

describe('conversions', () => {
  it('reads decimal comma with thousands dots, half-up to two decimals', () => {
    expect(erpNumberToAmount('1.234.567,50', comma)).toBe('1234567.50');
    expect(erpNumberToAmount('1234567,5', comma)).toBe('1234567.50');
    expect(erpNumberToAmount('0,005', comma)).toBe('0.01');
    expect(erpNumberToAmount('2,344', comma)).toBe('2.34');
    expect(erpNumberToAmount(' 45.000 ', comma)).toBe('45000.00');
    expect(erpNumberToAmount(',5', comma)).toBe('0.50');
    expect(erpNumberToAmount('1.5', comma)).toBeUndefined();
    expect(erpNumberToAmount('12,3,4', comma)).toBeUndefined();
    expect(erpNumberToAmount('abc', comma)).toBeUndefined();
    expect(erpNumberToAmount('', comma)).toBeUndefined();
  });

  it('reads decimal point with thousands commas', () => {
    expect(erpNumberToAmount('1,234,567.505', point)).toBe('1234567.51');
    expect(erpNumberToDecimal('2.50', point)).toBe('2.5');
  });

  it('keeps the precision of quantities, refuses fractions for integers and long rates', () => {
    expect(erpNumberToDecimal('0,125', comma)).toBe('0.125');
    expect(erpNumberToInteger('3,00', comma)).toBe('3');
    expect(erpNumberToInteger('3,5', comma)).toBeUndefined();
    expect(erpNumberToPercent('19', comma)).toBe('19.00');
    expect(erpNumberToPercent('2,5 %', comma)).toBe('2.50');
    expect(erpNumberToPercent('0', comma)).toBe('0.00');
    expect(erpNumberToPercent('1,234', comma)).toBeUndefined();
  });

  it('converts ERP dates by pattern and refuses days that do not exist', () => {
    expect(erpDateToIso('05/03/2026', 'dd/MM/yyyy')).toBe('2026-03-05');
    expect(erpDateToIso('5/3/26', 'd/M/yy')).toBe('2026-03-05');
    // two-digit years: 69-99 are the 1900s (a payroll's hire date 01/02/98 was issued as 2098-02-01)
    expect(erpDateToIso('01/02/98', 'dd/MM/yy')).toBe('1998-02-01');
    expect(erpDateToIso('31/12/69', 'dd/MM/yy')).toBe('1969-12-31');
    expect(erpDateToIso('01/01/68', 'dd/MM/yy')).toBe('2068-01-01');
    expect(erpDateToIso('29/02/00', 'dd/MM/yy')).toBe('2000-02-29');
    // a year written in full under `yy` is that year (a spreadsheet date cell reaches the mapping so)
    expect(erpDateToIso('01/02/1965', 'dd/MM/yy')).toBe('1965-02-01');
    expect(erpDateToIso('650201', 'yyMMdd')).toBe('2065-02-01');
    expect(erpDateToIso('19650201', 'yyMMdd')).toBe('1965-02-01');
    expect(erpDateToIso('01/02/965', 'dd/MM/yy')).toBeUndefined();
    // a year before 1900 is a slip (0026 for 2026), refused rather than issued as the year 26
    expect(erpDateToIso('18/11/0026', 'dd/MM/yyyy')).toBeUndefined();
    expect(erpDateToIso('31/12/1899', 'dd/MM/yyyy')).toBeUndefined();
    expect(erpDateToIso('01/01/1900', 'dd/MM/yyyy')).toBe('1900-01-01');
    expect(erpDateToIso('2026-03-05', 'yyyy-MM-dd')).toBe('2026-03-05');
    expect(erpDateToIso('29/02/2028', 'dd/MM/yyyy')).toBe('2028-02-29');
    expect(erpDateToIso('29/02/2026', 'dd/MM/yyyy')).toBeUndefined();
    expect(erpDateToIso('2026-03-05', 'dd/MM/yyyy')).toBeUndefined();
    expect(erpTimeToIso('8:05')).toBe('08:05:00');
    expect(erpTimeToIso('25:00:00')).toBeUndefined();
  });

  it('sniffs the delimiter outside quotes', () => {
    expect(sniffDelimiter('a;b;"c,d,e"')).toBe(';');
    expect(sniffDelimiter('a,b,c')).toBe(',');
    expect(sniffDelimiter('a\tb\tc;d')).toBe('\t');
    expect(sniffDelimiter('solo')).toBe(';');
  });

  it('keeps the last row of each key in the compact table, across growth', () => {
    const t = new LastRowTable(4);
    for (let i = 0; i < 50_000; i += 1) t.set(`k${i % 20_000}`, i + 2);
    expect(t.size).toBe(20_000);
    expect(t.get('k0')).toBe(40_002);
    expect(t.get('k19999')).toBe(40_001);
    expect(t.get('missing')).toBeUndefined();
  });
});
