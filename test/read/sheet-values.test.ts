/**
 * How spreadsheet cells reach the mapping (read/sheet-values.ts). Serial numbers are counted by
 * hand from Excel's calendars: 1900 system, serial 1 = 1900-01-01 and serial 61 = 1900-03-01
 * (Excel keeps the 1900-02-29 that never was as serial 60); 1904 system, serial 0 = 1904-01-01.
 */
import { describe, expect, test } from 'vitest';
import { isHiddenName } from '../../src/watch/file-names.js';
import { outputNames } from '../../src/policy/outbox-names.js';
import { isDateFormat, numberText, serialDateText } from '../../src/read/sheet-values.js';

describe('numeric cells', () => {
  test("in the mapping's decimal, 15 significant digits, never an exponent", () => {
    expect(numberText(1234567.5, ',')).toBe('1234567,5');
    expect(numberText(1234567.5, '.')).toBe('1234567.5');
    expect(numberText(0.1 + 0.2, '.')).toBe('0.3'); // 0.30000000000000004 as Excel shows it
    expect(numberText(900123456, ',')).toBe('900123456');
    expect(numberText(1e-7, '.')).toBe('0.0000001');
    expect(numberText(-2.5e21, '.')).toBe('-2500000000000000000000');
    expect(numberText(0, ',')).toBe('0');
  });
});

describe('serial dates', () => {
  test('the 1900 system, across the day that never was', () => {
    expect(serialDateText(1, false, 'yyyy-MM-dd')).toBe('1900-01-01');
    expect(serialDateText(59, false, 'yyyy-MM-dd')).toBe('1900-02-28');
    expect(serialDateText(60, false, 'yyyy-MM-dd')).toBeUndefined();
    expect(serialDateText(61, false, 'yyyy-MM-dd')).toBe('1900-03-01');
    // 2026-11-18 is 46,344 days after 1899-12-30 (126 years of 365 days = 45,990, plus 31 leap days up to
    // 2024, 1900 not one, plus 323 days from 2025-12-30 = 46,344); Excel's count from 1900-03-01 on
    expect(serialDateText(46344, false, 'dd/MM/yyyy')).toBe('18/11/2026');
  });

  test("times of day, with a date and alone, in the mapping's date pattern", () => {
    // 0.385416... = 9 h 15 min / 24 h
    // `yy`: the year in full, so its century is not lost (1965-02-01 is serial 23743 + 31, worked out by hand)
    expect(serialDateText(46344 + 9.25 / 24, false, 'd/M/yy')).toBe('18/11/2026 09:15:00');
    expect(serialDateText(23774, false, 'dd/MM/yy')).toBe('01/02/1965');
    expect(serialDateText(14 / 24 + 2 / 1440 + 30 / 86400, false, 'dd/MM/yyyy')).toBe('14:02:30');
  });

  test('the 1904 system counts from 1904-01-01', () => {
    // 2026-11-18 in the 1904 system: 46344 - 1462 (the 4 years and a day between the two epochs)
    expect(serialDateText(46344 - 1462, true, 'yyyy-MM-dd')).toBe('2026-11-18');
    // a time cell of a 1904 workbook (9 h 15 min on day 0) is a time alone, as in the 1900 system
    expect(serialDateText(9.25 / 24, true, 'dd/MM/yyyy')).toBe('09:15:00');
    expect(serialDateText(46344 - 1462 + 9.25 / 24, true, 'dd/MM/yyyy')).toBe(
      '18/11/2026 09:15:00',
    );
  });

  test('which number formats are dates', () => {
    expect(isDateFormat(14, undefined)).toBe(true);
    expect(isDateFormat(4, undefined)).toBe(false); // #,##0.00
    expect(isDateFormat(164, 'dd/mm/yyyy')).toBe(true);
    expect(isDateFormat(165, '[$-240A]hh:mm:ss')).toBe(true);
    expect(isDateFormat(166, '"$"\\ #,##0.00;[Red]\\-"$"\\ #,##0.00')).toBe(false);
    expect(isDateFormat(167, '0000000')).toBe(false);
    expect(isDateFormat(168, '0.00E+00')).toBe(false);
    expect(isDateFormat(169, 'General')).toBe(false);
  });
});

describe('around the reader', () => {
  test('the owner file Excel keeps beside an open workbook is never a document', () => {
    expect(isHiddenName('/inbox/invoice/~$ventas.xlsx')).toBe(true);
    expect(isHiddenName('/inbox/invoice/ventas.xlsx')).toBe(false);
  });

  test("a spreadsheet's retry file is CSV", () => {
    expect(outputNames('ventas', 'ventas.xlsx').retry).toBe('ventas.retry.csv');
    expect(outputNames('ventas', 'VENTAS.XLS').retry).toBe('ventas.retry.csv');
    expect(outputNames('ventas', 'ventas.csv').retry).toBe('ventas.retry.csv');
    expect(outputNames('ventas', 'ventas.json').retry).toBe('ventas.retry.json');
  });
});
