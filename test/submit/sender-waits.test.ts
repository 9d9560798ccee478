/** SenderWaits: a wake that comes while the feeder is not asleep (reading the ledger) is not lost. */
import { describe, expect, test } from 'vitest';
import { SenderWaits } from '../../src/submit/sender-waits.js';

/** Whether `p` settles within `ms`. */
async function settlesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const r = await Promise.race([p.then(() => true), late]);
  clearTimeout(timer);
  return r;
}

describe('SenderWaits', () => {
  test('a wake before the sleep ends the next sleep at once; the one after sleeps again', async () => {
    const w = new SenderWaits();
    w.wake();
    expect(await settlesWithin(w.sleep(60_000), 2_000)).toBe(true);
    const second = w.sleep(60_000);
    expect(await settlesWithin(second, 200)).toBe(false);
    w.wake();
    expect(await settlesWithin(second, 2_000)).toBe(true);
  });

  test('a wake after a sleep that ended by its time is kept for the next sleep', async () => {
    const w = new SenderWaits();
    await w.sleep(10);
    w.wake();
    expect(await settlesWithin(w.sleep(60_000), 2_000)).toBe(true);
  });
});
