/**
 * The intake's byte budget (intake/intake-budget.ts): small files are read many at a time, a big one
 * waits for room, one larger than the budget is read alone, and arrival order is kept.
 */
import { describe, expect, it } from 'vitest';
import { IntakeBudget } from '../../src/intake/intake-budget.js';

/** Whether the promise settled within a turn of the event loop. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('intake byte budget', () => {
  it('reads small files together up to the budget; the next waits until one ends', async () => {
    const budget = new IntakeBudget(100);
    const a = await budget.acquire(30);
    await budget.acquire(30);
    await budget.acquire(30);
    expect(budget.bytes).toBe(90); // 30 + 30 + 30
    const fourth = budget.acquire(30); // 90 + 30 = 120 > 100
    expect(await settled(fourth)).toBe(false);
    a();
    expect(await settled(fourth)).toBe(true);
    expect(budget.bytes).toBe(90); // 60 + 30
  });

  it('reads a file larger than the whole budget alone', async () => {
    const budget = new IntakeBudget(100);
    const big = await budget.acquire(500); // nothing else in flight: it goes
    const tiny = budget.acquire(1);
    expect(await settled(tiny)).toBe(false);
    big();
    expect(await settled(tiny)).toBe(true);
    expect(budget.bytes).toBe(1);
  });

  it('keeps arrival order: a small file that would fit waits behind a big one waiting', async () => {
    const budget = new IntakeBudget(100);
    const first = await budget.acquire(60);
    const big = budget.acquire(80); // 60 + 80 > 100: waits
    const small = budget.acquire(10); // 60 + 10 fits, but the big one came first
    expect(await settled(big)).toBe(false);
    expect(await settled(small)).toBe(false);
    first();
    // 80 goes, then 10 beside it (80 + 10 = 90 <= 100)
    expect(await settled(big)).toBe(true);
    expect(await settled(small)).toBe(true);
    expect(budget.bytes).toBe(90);
  });

  it('gives the room back once, however often a read ends', async () => {
    const budget = new IntakeBudget(100);
    const a = await budget.acquire(70);
    await budget.acquire(20);
    a();
    a();
    expect(budget.bytes).toBe(20);
    const next = budget.acquire(90); // 20 + 90 > 100: waits, as a double release must not make room
    expect(await settled(next)).toBe(false);
  });

  it('counts an unknown or nonsense size as nothing', async () => {
    const budget = new IntakeBudget(100);
    await budget.acquire(Number.NaN);
    await budget.acquire(-5);
    expect(budget.bytes).toBe(0);
  });
});
