/** Readiness as data: every check named, the failing ones with what is wrong; the service check from ServiceHealth. */
import { describe, expect, test } from 'vitest';
import { checkReadiness, serviceAnswers } from '../../src/health/readiness.js';
import { ServiceHealth } from '../../src/health/service-health.js';

describe('checkReadiness', () => {
  test('ready only when every check passes; a check that throws fails with one line', async () => {
    expect(await checkReadiness([{ name: 'a', check: () => undefined }])).toEqual({
      ready: true,
      checks: [{ name: 'a', ok: true }],
    });
    const report = await checkReadiness([
      { name: 'a', check: () => undefined },
      { name: 'b', check: async () => 'b is wrong' },
      {
        name: 'c',
        check: () => {
          throw new Error('boom\nstack');
        },
      },
    ]);
    expect(report).toEqual({
      ready: false,
      checks: [
        { name: 'a', ok: true },
        { name: 'b', ok: false, problem: 'b is wrong' },
        { name: 'c', ok: false, problem: 'the check failed: boom' },
      ],
    });
  });
});

describe('serviceAnswers', () => {
  test('unknown until the first call; down after a call without an answer; up again on an answer; stale after staleMs', () => {
    let now = 1_000_000;
    const health = new ServiceHealth();
    const check = serviceAnswers(health, 25_000, () => now);
    expect(check.check()).toMatch(/not asked yet/);
    health.noteAnswer(now);
    expect(check.check()).toBeUndefined();
    health.noteFailure('E10: no answer', now + 1_000);
    expect(check.check()).toBe(
      `does not answer since ${new Date(now + 1_000).toISOString()}: E10: no answer`,
    );
    health.noteAnswer(now + 2_000);
    expect(check.check()).toBeUndefined();
    now += 2_000 + 25_001;
    expect(check.check()).toBe('no answer for 25 s');
  });

  test('a process that may ask the service for no company now (a cluster node holding no lease) has nothing to judge: ready', () => {
    const health = new ServiceHealth();
    let none = true;
    const check = serviceAnswers(
      health,
      25_000,
      () => 1_000_000,
      () => none,
    );
    expect(check.check()).toBeUndefined();
    health.noteFailure('E10: no answer', 1_000_000);
    expect(check.check()).toBeUndefined();
    none = false; // it took a company: the service's state counts again
    expect(check.check()).toMatch(/^does not answer/);
  });
});
