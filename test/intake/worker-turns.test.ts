/**
 * The intake worker's turns (src/intake/worker-turns.ts): at most N reads work at once, the others get
 * a turn first come, first served, and one aborted while it waits leaves the queue without taking a turn.
 */
import { describe, expect, it } from 'vitest';
import { SLICE_MS, WorkerTurns } from '../../src/intake/worker-turns.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('worker turns', () => {
  it('lets two work at once and hands each turn given back to the longest waiting', async () => {
    const turns = new WorkerTurns(2);
    const order: string[] = [];
    await turns.take();
    await turns.take();
    expect(turns.available).toBe(0);
    for (const name of ['c', 'd', 'e']) void turns.take().then(() => order.push(name));
    await turn();
    expect(order).toEqual([]);
    expect(turns.queued).toBe(3);
    turns.give();
    await turn();
    expect(order).toEqual(['c']);
    turns.give();
    turns.give();
    await turn();
    expect(order).toEqual(['c', 'd', 'e']);
    expect(turns.available).toBe(0);
    turns.give();
    expect(turns.available).toBe(1);
  });

  it('a wait aborted leaves the queue with the reason and takes no turn; an aborted signal fails at once', async () => {
    const turns = new WorkerTurns(1);
    await turns.take();
    const stop = new AbortController();
    const aborted = turns.take(stop.signal);
    const after: string[] = [];
    void turns.take().then(() => after.push('next'));
    stop.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    expect(turns.queued).toBe(1);
    turns.give();
    await turn();
    expect(after).toEqual(['next']);
    // an abort after the turn was given changes nothing
    stop.abort();
    turns.give();
    expect(turns.available).toBe(1);
    await expect(turns.take(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
    expect(turns.available).toBe(1);
  });

  it('a turn is due for another only when one waits and the slice is over', async () => {
    const turns = new WorkerTurns(1);
    await turns.take();
    const since = performance.now();
    expect(turns.due(since - SLICE_MS)).toBe(false);
    void turns.take();
    expect(turns.due(since - SLICE_MS)).toBe(true);
    expect(turns.due(performance.now())).toBe(false);
  });
});
