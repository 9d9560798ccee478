import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../src/service/deadlines.js';

function aborted(signal: AbortSignal): Promise<{ at: number; reason: unknown }> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve({ at: Date.now(), reason: signal.reason });
    else
      signal.addEventListener('abort', () => resolve({ at: Date.now(), reason: signal.reason }), {
        once: true,
      });
  });
}

describe('Deadlines', () => {
  it('calls of one slice share a signal that aborts no earlier than the timeout, with ETIMEDOUT', async () => {
    let now = 1_000_000;
    const deadlines = new Deadlines(() => now);
    const a = deadlines.signal(200);
    now += 5; // the same slice (a twentieth of 200 ms is 10 ms)
    const b = deadlines.signal(200);
    expect(b).toBe(a);
    now += 10; // the next slice
    expect(deadlines.signal(200)).not.toBe(a);
    expect(deadlines.signal(300)).not.toBe(a); // another timeout, another deadline
    const started = Date.now();
    const { at, reason } = await aborted(a);
    // ends 10 ms after the slice's end + 200 ms (the injected clock moved 15 ms past its start)
    expect(at - started).toBeGreaterThanOrEqual(190);
    expect(reason).toMatchObject({
      code: 'ETIMEDOUT',
      message: 'no complete answer within 200 ms',
    });
  });

  it("a caller's abort ends its own slices at once with its reason; an aborted caller is its own signal", async () => {
    const deadlines = new Deadlines();
    const caller = new AbortController();
    const other = new AbortController();
    const mine = deadlines.signal(60_000, caller.signal);
    const theirs = deadlines.signal(60_000, other.signal);
    const none = deadlines.signal(60_000);
    expect(new Set([mine, theirs, none]).size).toBe(3);
    expect(deadlines.signal(60_000, caller.signal)).toBe(mine);
    caller.abort(new Error('stopping'));
    expect((await aborted(mine)).reason).toMatchObject({ message: 'stopping' });
    expect(theirs.aborted).toBe(false);
    expect(none.aborted).toBe(false);
    const gone = AbortSignal.abort();
    expect(deadlines.signal(60_000, gone)).toBe(gone);
    // a slice ended by its caller is not handed out again
    expect(deadlines.signal(60_000, caller.signal).aborted).toBe(true);
  });

  it("a slice never keeps the process alive on its own (its timer is unref'd)", () => {
    const deadlines = new Deadlines();
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    deadlines.signal(3_600_000);
    const after = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    expect(after).toBe(before);
  });
});

describe('Deadlines and a long-lived caller signal', () => {
  it('many slices of one caller add one listener to its signal, not one each (no MaxListenersExceededWarning)', async () => {
    let now = 0;
    const deadlines = new Deadlines(() => now);
    const caller = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w);
    };
    process.on('warning', onWarning);
    try {
      const signals = Array.from({ length: 30 }, () => {
        now += 1_000; // a new slice each time (60 s timeout: 1 s slices)
        return deadlines.signal(60_000, caller.signal);
      });
      expect(new Set(signals).size).toBe(30);
      await new Promise((resolve) => setImmediate(resolve));
      caller.abort(new Error('stopping'));
      for (const s of signals) expect(s.reason).toMatchObject({ message: 'stopping' });
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});

describe('Deadlines at the edges', () => {
  it('a timeout longer than setTimeout can wait does not abort at once', async () => {
    const deadlines = new Deadlines();
    const signal = deadlines.signal(40 * 86_400_000); // 40 days
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signal.aborted).toBe(false);
  });
});
