import { describe, expect, it } from 'vitest';
import {
  addDays,
  colombiaDateTime,
  colombiaToday,
  daysBetween,
  dmyToIso,
  formatDate,
  formatDateTime,
  isDate,
  isDateTime,
  isoToDmy,
  parseDate,
  parseDateTime,
} from '../../src/policy/dates.js';

describe('Colombia dates (UTC-5, no DST)', () => {
  it('is still yesterday in Colombia until 05:00 UTC', () => {
    expect(colombiaToday(Date.parse('2026-11-22T04:59:59Z'))).toBe('2026-11-21');
    expect(colombiaToday(Date.parse('2026-11-22T05:00:00Z'))).toBe('2026-11-22');
    expect(colombiaToday(Date.parse('2027-01-01T03:00:00Z'))).toBe('2026-12-31');
    // No DST: the same offset in June.
    expect(colombiaToday(Date.parse('2026-06-15T04:30:00Z'))).toBe('2026-06-14');
  });

  it('uses a pinned date when one is given and valid', () => {
    expect(colombiaToday(Date.parse('2026-11-22T12:00:00Z'), '2026-03-01')).toBe('2026-03-01');
    expect(colombiaToday(Date.parse('2026-11-22T12:00:00Z'), null)).toBe('2026-11-22');
    expect(colombiaToday(Date.parse('2026-11-22T12:00:00Z'), '2026-02-30')).toBe('2026-11-22');
  });

  it('gives Colombia wall-clock date-time', () => {
    expect(colombiaDateTime(Date.parse('2026-11-22T04:59:59Z'))).toBe('2026-11-21T23:59:59');
  });

  it('counts days between dates, across months, years and leap days', () => {
    expect(daysBetween('2026-11-16', '2026-11-22')).toBe(6);
    expect(daysBetween('2026-11-22', '2026-11-16')).toBe(-6);
    expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2);
    expect(daysBetween('2026-12-31', '2027-01-01')).toBe(1);
    expect(() => daysBetween('2026-11-31', '2026-12-01')).toThrow(RangeError);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
  });

  it('parses yyyy-MM-dd strictly', () => {
    expect(parseDate('2026-11-22')).toBe(Date.UTC(2026, 10, 22));
    for (const bad of [
      '2026-11-31',
      '2026-02-29',
      '2026-13-01',
      '2026-00-10',
      '26-11-22',
      '2026-1-2',
      '2026-11-22T00:00:00',
      ' 2026-11-22',
    ]) {
      expect(parseDate(bad), bad).toBeUndefined();
      expect(isDate(bad)).toBe(false);
    }
    expect(isDate('2024-02-29')).toBe(true);
    expect(isDate(20261122)).toBe(false);
  });

  it('parses yyyy-MM-ddTHH:mm:ss strictly', () => {
    expect(parseDateTime('2026-11-22T23:59:59')).toBe(Date.UTC(2026, 10, 22, 23, 59, 59));
    for (const bad of [
      '2026-11-22T24:00:00',
      '2026-11-22T10:60:00',
      '2026-11-22 10:00:00',
      '2026-11-22T10:00:00Z',
      '2026-11-22T10:00',
    ]) {
      expect(parseDateTime(bad), bad).toBeUndefined();
      expect(isDateTime(bad)).toBe(false);
    }
    expect(formatDateTime(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02T03:04:05');
    expect(formatDate(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02');
  });

  it('converts dd/MM/yyyy (ERP dates) both ways', () => {
    expect(dmyToIso('05/11/2026')).toBe('2026-11-05');
    expect(dmyToIso('29/02/2024')).toBe('2024-02-29');
    for (const bad of ['31/11/2026', '5/11/2026', '2026-11-05', '05-11-2026', '29/02/2026'])
      expect(dmyToIso(bad), bad).toBeUndefined();
    expect(isoToDmy('2026-11-05')).toBe('05/11/2026');
    expect(isoToDmy('2026-11-31')).toBeUndefined();
  });
});
