import { describe, expect, it } from 'vitest';
import {
  advancedCursor,
  lastDayOfMonth,
  monthSlices,
  scheduledWindow,
} from '../../src/received/window.js';

describe('received windows', () => {
  it('the first scheduled window starts at received.startDate and ends today', () => {
    expect(
      scheduledWindow({
        cursor: undefined,
        lookbackDays: 3,
        startDate: '2026-01-01',
        today: '2026-05-20',
      }),
    ).toEqual({ from: '2026-01-01', to: '2026-05-20' });
  });

  it('later windows start lookbackDays before the cursor', () => {
    expect(
      scheduledWindow({
        cursor: '2026-03-02',
        lookbackDays: 3,
        startDate: '2026-01-01',
        today: '2026-03-05',
      }),
    ).toEqual({ from: '2026-02-27', to: '2026-03-05' });
    expect(
      scheduledWindow({
        cursor: '2026-03-05',
        lookbackDays: 0,
        startDate: '2026-01-01',
        today: '2026-03-05',
      }),
    ).toEqual({ from: '2026-03-05', to: '2026-03-05' });
  });

  it('a startDate or cursor after today still gives a one-day window of today', () => {
    expect(
      scheduledWindow({
        cursor: undefined,
        lookbackDays: 3,
        startDate: '2027-01-01',
        today: '2026-05-20',
      }),
    ).toEqual({ from: '2026-05-20', to: '2026-05-20' });
  });

  it('long windows are split into calendar months, oldest first, leap day included', () => {
    expect(monthSlices({ from: '2028-01-15', to: '2028-03-02' })).toEqual([
      { from: '2028-01-15', to: '2028-01-31' },
      { from: '2028-02-01', to: '2028-02-29' },
      { from: '2028-03-01', to: '2028-03-02' },
    ]);
    expect(monthSlices({ from: '2026-12-31', to: '2027-01-01' })).toEqual([
      { from: '2026-12-31', to: '2026-12-31' },
      { from: '2027-01-01', to: '2027-01-01' },
    ]);
    expect(monthSlices({ from: '2026-05-02', to: '2026-05-01' })).toEqual([]);
    expect(lastDayOfMonth('2026-02-10')).toBe('2026-02-28');
    expect(lastDayOfMonth('2026-12-01')).toBe('2026-12-31');
  });

  it('the cursor moves forward only, only over a slice joined to it, never past today', () => {
    const start = '2026-01-01';
    expect(
      advancedCursor(undefined, start, { from: '2026-01-01', to: '2026-01-31' }, '2026-05-20'),
    ).toBe('2026-01-31');
    expect(
      advancedCursor(undefined, start, { from: '2026-02-01', to: '2026-02-28' }, '2026-05-20'),
    ).toBeUndefined();
    expect(
      advancedCursor('2026-01-31', start, { from: '2026-02-01', to: '2026-02-28' }, '2026-05-20'),
    ).toBe('2026-02-28');
    expect(
      advancedCursor('2026-01-31', start, { from: '2026-02-02', to: '2026-02-28' }, '2026-05-20'),
    ).toBeUndefined();
    expect(
      advancedCursor('2026-04-30', start, { from: '2026-01-01', to: '2026-01-31' }, '2026-05-20'),
    ).toBeUndefined();
    expect(
      advancedCursor('2026-05-01', start, { from: '2026-05-01', to: '2026-05-31' }, '2026-05-20'),
    ).toBe('2026-05-20');
  });
});
