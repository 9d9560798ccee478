/** A company's take gate: files taken share it, a reload changing the company's identity holds it alone. */
import { describe, expect, test } from 'vitest';
import { TakeGate } from '../../src/company/take-gate.js';

/** Whether `p` settled once the microtasks queued now have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('TakeGate', () => {
  test('takes share it at once; a reload waits until every take in flight is released', async () => {
    const gate = new TakeGate();
    const first = await gate.take();
    const second = await gate.take();
    expect(gate.taking).toBe(2);
    const deciding = gate.decide();
    expect(await settled(deciding)).toBe(false);
    first();
    first(); // a second release does nothing
    expect(await settled(deciding)).toBe(false);
    second();
    expect(await settled(deciding)).toBe(true);
    expect(gate.taking).toBe(0);
  });

  test('a take that comes while a reload waits or decides waits for it, then reads what it left', async () => {
    const gate = new TakeGate();
    const inFlight = await gate.take();
    const deciding = gate.decide();
    const later = gate.take();
    inFlight();
    const decided = await deciding;
    expect(await settled(later)).toBe(false);
    decided();
    const release = await later;
    expect(gate.taking).toBe(1);
    release();
    expect(gate.taking).toBe(0);
  });

  test('holds are granted in the order asked: takes after a waiting reload do not pass it', async () => {
    const gate = new TakeGate();
    const order: string[] = [];
    const inFlight = await gate.take();
    const asked = [
      gate.decide().then((r) => (order.push('reload 1'), r)),
      gate.take().then((r) => (order.push('take'), r)),
      gate.decide().then((r) => (order.push('reload 2'), r)),
    ];
    inFlight();
    (await asked[0])();
    (await asked[1])();
    (await asked[2])();
    expect(order).toEqual(['reload 1', 'take', 'reload 2']);
  });
});
