import { describe, expect, it } from 'vitest';
import { KeyedTurns } from '../../src/policy/keyed-turns.js';

/** A job that records its start and end, and ends when `release` is called. */
function gatedJob(
  log: string[],
  name: string,
): { job: () => Promise<string>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    job: async () => {
      log.push(`${name} start`);
      await gate;
      log.push(`${name} end`);
      return name;
    },
    release,
  };
}

describe('KeyedTurns', () => {
  it("runs one key's jobs one after the other and another key's meanwhile", async () => {
    const turns = new KeyedTurns();
    const log: string[] = [];
    const a1 = gatedJob(log, 'a1');
    const a2 = gatedJob(log, 'a2');
    const b1 = gatedJob(log, 'b1');
    const p1 = turns.run('a', a1.job);
    const p2 = turns.run('a', a2.job);
    const p3 = turns.run('b', b1.job);
    await new Promise((resolve) => setImmediate(resolve));
    // a2 waits for a1; b1 does not
    expect(log).toEqual(['a1 start', 'b1 start']);
    b1.release();
    expect(await p3).toBe('b1');
    a2.release(); // released early: still starts only after a1 ended
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['a1 start', 'b1 start', 'b1 end']);
    a1.release();
    expect(await p1).toBe('a1');
    expect(await p2).toBe('a2');
    expect(log).toEqual(['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end']);
  });

  it('goes on with the next job of a key after one failed, and the failure reaches its caller', async () => {
    const turns = new KeyedTurns();
    const failed = turns.run('a', () => Promise.reject(new Error('boom')));
    const next = turns.run('a', () => Promise.resolve('next'));
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next');
  });

  it('settles once every job given so far has ended, failed ones included', async () => {
    const turns = new KeyedTurns();
    const log: string[] = [];
    const a = gatedJob(log, 'a');
    const b = gatedJob(log, 'b');
    void turns.run('a', a.job);
    turns.run('b', b.job).catch(() => undefined);
    let settled = false;
    const all = turns.settled().then(() => (settled = true));
    a.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    b.release();
    await all;
    expect(log).toEqual(['a start', 'b start', 'a end', 'b end']);
  });
});
