import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/faults.js';
import { SlidingWindow } from '../../src/policy/rate-window.js';

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

  it('counts a reservation from the moment its request was sent, or its attempt ended', () => {
    const w = new SlidingWindow(2, 1000);
    const a = w.tryReserve(0);
    const b = w.tryReserve(0);
    if (!('reservation' in a) || !('reservation' in b)) throw new Error('expected two slots');
    // both slots are taken while their requests have not left: a third waits (briefly, then asks again)
    expect(w.peek(10)).toBeGreaterThan(0);
    b.reservation.sent(30); // its connection was refused at 30 ms: that attempt counts too
    a.reservation.sent(80); // held back 80 ms after its slot (a connection opening, a commit)
    b.reservation.sent(500); // idempotent
    // the next one must wait one window after the 30 ms attempt, then after the 80 ms send
    expect(w.tryReserve(1000)).toEqual({ wait: 30 });
    expect(w.tryReserve(1030)).toHaveProperty('reservation');
    expect(w.tryReserve(1031)).toEqual({ wait: 49 });
    expect(w.tryReserve(1080)).toHaveProperty('reservation');
  });

  it('never lets more than limit requests leave in any window when sends lag their slots at random', () => {
    const random = mulberry32(7);
    for (let round = 0; round < 20; round += 1) {
      const limit = 1 + Math.floor(random() * 6);
      const windowMs = 100 + Math.floor(random() * 900);
      const w = new SlidingWindow(limit, windowMs);
      const sentTimes: number[] = [];
      const open: { at: number; sent(at: number): void }[] = [];
      let now = 0;
      for (let step = 0; step < 3000; step += 1) {
        now += Math.floor(random() * 20);
        // requests whose time has come leave now (or never, one in ten)
        for (let i = open.length - 1; i >= 0; i -= 1) {
          const r = open[i]!;
          if (r.at > now) continue;
          open.splice(i, 1);
          r.sent(now);
          sentTimes.push(now);
        }
        const got = w.tryReserve(now);
        if ('reservation' in got) open.push({ at: now + Math.floor(random() * random() * windowMs), ...got.reservation });
      }
      sentTimes.sort((x, y) => x - y);
      expect(maxInAnyWindow(sentTimes, windowMs)).toBeLessThanOrEqual(limit);
      expect(sentTimes.length).toBeGreaterThan(limit * 2);
    }
  });

  it('does not reopen spent slots when the clock steps back', () => {
    const w = new SlidingWindow(2, 1000);
    expect(w.tryAcquire(5000)).toBe(0);
    expect(w.tryAcquire(5001)).toBe(0);
    expect(w.tryAcquire(100)).toBeGreaterThan(0);
  });

  it('slows down after a 429: the window stretches by 1 / factor until the given time', () => {
    const w = new SlidingWindow(2, 1000);
    w.slowDown(0.5, 10_000);
    expect(w.currentWindowMs(0)).toBe(2000);
    expect(w.tryAcquire(0)).toBe(0);
    expect(w.tryAcquire(0)).toBe(0);
    expect(w.tryAcquire(1000)).toBe(1000);
    expect(w.tryAcquire(2000)).toBe(0);
    // A second slow-down keeps the stronger factor and the later end.
    w.slowDown(0.8, 20_000);
    expect(w.currentWindowMs(2000)).toBe(2000);
    expect(w.currentWindowMs(19_999)).toBe(2000);
    expect(w.currentWindowMs(20_000)).toBe(1000);
    // After the slow-down the normal window applies again.
    const v = new SlidingWindow(1, 1000);
    v.slowDown(0.25, 500);
    expect(v.tryAcquire(0)).toBe(0);
    expect(v.tryAcquire(600)).toBe(400);
  });

  it('while slowed down never admits more than limit in any stretched window', () => {
    const random = mulberry32(7);
    const w = new SlidingWindow(4, 1000);
    w.slowDown(0.25, 50_000);
    const admitted: number[] = [];
    let now = 0;
    while (now < 50_000) {
      if (w.tryAcquire(now) === 0) admitted.push(now);
      now += Math.floor(random() * 300);
    }
    expect(maxInAnyWindow(admitted.filter((t) => t < 50_000), 4000)).toBeLessThanOrEqual(4);
    expect(admitted.length).toBeGreaterThan(40);
  });

  it('rejects nonsense parameters early', () => {
    expect(() => new SlidingWindow(0, 1000)).toThrow(RangeError);
    expect(() => new SlidingWindow(1.5, 1000)).toThrow(RangeError);
    expect(() => new SlidingWindow(1, 0)).toThrow(RangeError);
    expect(() => new SlidingWindow(1, 1000).slowDown(0, 1)).toThrow(RangeError);
    expect(() => new SlidingWindow(1, 1000).slowDown(2, 1)).toThrow(RangeError);
  });
});
