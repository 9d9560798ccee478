import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/faults.js';
import { OPEN_POLL_MS, SlidingWindow } from '../../src/policy/rate-window.js';

/** Most acquisitions inside any half-open span [s, s + windowMs), by scanning every start at an acquisition. */
function maxInAnyWindow(times: number[], windowMs: number): number {
  let best = 0;
  let j = 0;
  for (let i = 0; i < times.length; i += 1) {
    while (times[i] - times[j] >= windowMs) j += 1;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('strict sliding window', () => {
  it('admits limit acquisitions, then says how long to wait', () => {
    const w = new SlidingWindow(3, 1000);
    expect(w.tryAcquire(0)).toBe(0);
    expect(w.tryAcquire(100)).toBe(0);
    expect(w.tryAcquire(200)).toBe(0);
    expect(w.tryAcquire(300)).toBe(700);
    expect(w.peek(999)).toBe(1);
    expect(w.tryAcquire(1000)).toBe(0);
    expect(w.tryAcquire(1000)).toBe(100);
    expect(w.inWindow(1000)).toBe(3);
  });

  it('does not record a refused acquisition', () => {
    const w = new SlidingWindow(1, 1000);
    expect(w.tryAcquire(0)).toBe(0);
    for (let t = 1; t < 1000; t += 97) expect(w.tryAcquire(t)).toBe(1000 - t);
    expect(w.tryAcquire(1000)).toBe(0);
  });

  it('never admits more than limit in any window under randomized times', () => {
    const random = mulberry32(2026);
    for (let round = 0; round < 30; round += 1) {
      const limit = 1 + Math.floor(random() * 8);
      const windowMs = 50 + Math.floor(random() * 1000);
      const w = new SlidingWindow(limit, windowMs);
      const admitted: number[] = [];
      let now = 0;
      for (let i = 0; i < 2000; i += 1) {
        now += Math.floor(random() * random() * windowMs * 0.7);
        const wait = w.tryAcquire(now);
        if (wait === 0) admitted.push(now);
        else expect(wait).toBeGreaterThan(0);
      }
      expect(maxInAnyWindow(admitted, windowMs)).toBeLessThanOrEqual(limit);
      expect(admitted.length).toBeGreaterThan(limit);
    }
  });

  it('admits as soon as the wait it announced has passed (waiting callers lose no throughput)', () => {
    const random = mulberry32(99);
    const w = new SlidingWindow(5, 1000);
    const admitted: number[] = [];
    let now = 0;
    while (admitted.length < 200) {
      const wait = w.tryAcquire(now);
      if (wait === 0) {
        admitted.push(now);
        now += Math.floor(random() * 50);
      } else {
        now += wait;
        expect(w.peek(now)).toBe(0);
      }
    }
    expect(maxInAnyWindow(admitted, 1000)).toBe(5);
  });

  it('counts a reservation from the moment its request ended (its answer came, or the attempt failed)', () => {
    const w = new SlidingWindow(2, 1000);
    const a = w.tryReserve(0);
    const b = w.tryReserve(0);
    if (!('reservation' in a) || !('reservation' in b)) throw new Error('expected two slots');
    // both slots are requests in flight: a third cannot be told a time, only to ask again
    expect(w.tryReserve(10)).toEqual({ wait: OPEN_POLL_MS, open: true });
    expect(w.peek(10)).toBe(OPEN_POLL_MS);
    b.reservation.ended(30); // its connection was refused at 30 ms: that attempt counts too
    a.reservation.ended(80); // its answer came at 80 ms
    b.reservation.ended(500); // idempotent
    // the next one must wait one window after the 30 ms end, then after the 80 ms answer
    expect(w.tryReserve(1000)).toEqual({ wait: 30 });
    expect(w.tryReserve(1030)).toHaveProperty('reservation');
    expect(w.tryReserve(1031)).toEqual({ wait: 49 });
    expect(w.tryReserve(1080)).toHaveProperty('reservation');
  });

  it('never lets more than limit requests ARRIVE in any window, wherever between leaving and answer each arrives', () => {
    const random = mulberry32(7);
    for (let round = 0; round < 40; round += 1) {
      const limit = 1 + Math.floor(random() * 6);
      const windowMs = 100 + Math.floor(random() * 900);
      const w = new SlidingWindow(limit, windowMs);
      const arrivals: number[] = [];
      const open: { end: number; ended(at: number): void }[] = [];
      let now = 0;
      for (let step = 0; step < 3000; step += 1) {
        now += Math.floor(random() * 20);
        for (let i = open.length - 1; i >= 0; i -= 1) {
          const r = open[i]!;
          if (r.end > now) continue;
          open.splice(i, 1);
          r.ended(now);
        }
        const got = w.tryReserve(now);
        if (!('reservation' in got)) continue;
        // it leaves after a lag (a connection opening), its transit and the service's stalls are random
        // (up to a whole window and more), and it arrives anywhere in between: at its leaving, at its
        // answer, or half-way, each a third of the time
        const leaves = now + Math.floor(random() * 50);
        const answer = leaves + Math.floor(random() * random() * 2 * windowMs);
        const pick = random();
        arrivals.push(
          pick < 1 / 3 ? leaves : pick < 2 / 3 ? answer : Math.floor((leaves + answer) / 2),
        );
        open.push({ end: answer, ...got.reservation });
      }
      arrivals.sort((x, y) => x - y);
      expect(maxInAnyWindow(arrivals, windowMs)).toBeLessThanOrEqual(limit);
      expect(arrivals.length).toBeGreaterThan(limit * 2);
    }
  });

  it('does not reopen spent slots when the clock steps back', () => {
    const w = new SlidingWindow(2, 1000);
    expect(w.tryAcquire(5000)).toBe(0);
    expect(w.tryAcquire(5001)).toBe(0);
    expect(w.tryAcquire(100)).toBeGreaterThan(0);
  });

  it('a 429 halves the rate by admitting fewer requests per window, not by stretching it (no full-size burst)', () => {
    const w = new SlidingWindow(20, 1000);
    w.refused(0, 30_000);
    expect(w.current(0)).toEqual({ limit: 10, windowMs: 1000 });
    let admitted = 0;
    for (let t = 0; t < 1000; t += 10) if (w.tryAcquire(t) === 0) admitted++;
    expect(admitted).toBe(10);
    // after the slow-down the configured rate applies again
    expect(w.current(30_000)).toEqual({ limit: 20, windowMs: 1000 });
  });

  it('a 429 a whole window after the last halving halves again, down to 1/64; the rest of a burst counts once', () => {
    const w = new SlidingWindow(4, 1000);
    w.refused(0, 30_000);
    expect(w.current(0)).toEqual({ limit: 2, windowMs: 1000 });
    // the other refusals of the same burst (sent, or still counted by the service, before the halving)
    w.refused(100, 30_100);
    w.refused(999, 30_999);
    expect(w.current(1000)).toEqual({ limit: 2, windowMs: 1000 });
    // still refused a window later: the service allows less than half
    w.refused(1000, 31_000);
    expect(w.current(1000)).toEqual({ limit: 1, windowMs: 1000 });
    w.refused(2000, 32_000);
    // below one request per window: one per longer window
    expect(w.current(2000)).toEqual({ limit: 1, windowMs: 2000 });
    let now = 2000;
    for (let i = 0; i < 10; i++) {
      now += w.current(now).windowMs;
      w.refused(now, now + 100_000);
    }
    expect(w.current(now)).toEqual({ limit: 1, windowMs: 16_000 }); // 4 × 1/64 per second
    // no refusal until the end: the configured rate again, and the next refusal starts over at half
    expect(w.current(now + 100_000)).toEqual({ limit: 4, windowMs: 1000 });
    w.refused(now + 100_000, now + 130_000);
    expect(w.current(now + 100_000)).toEqual({ limit: 2, windowMs: 1000 });
  });

  it('while slowed down never admits more than the slowed limit in any window', () => {
    const random = mulberry32(7);
    const w = new SlidingWindow(8, 1000);
    w.refused(0, 50_000);
    w.refused(1000, 50_000); // 2 per second
    const admitted: number[] = [];
    let now = 1000;
    while (now < 50_000) {
      if (w.tryAcquire(now) === 0) admitted.push(now);
      now += Math.floor(random() * 300);
    }
    expect(maxInAnyWindow(admitted, 1000)).toBeLessThanOrEqual(2);
    expect(admitted.length).toBeGreaterThan(60);
  });

  it('rejects nonsense parameters early', () => {
    expect(() => new SlidingWindow(0, 1000)).toThrow(RangeError);
    expect(() => new SlidingWindow(1.5, 1000)).toThrow(RangeError);
    expect(() => new SlidingWindow(1, 0)).toThrow(RangeError);
  });
});
