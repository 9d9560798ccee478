import { afterEach, describe, expect, it } from 'vitest';
import { ServiceHealth } from '../../src/health/service-health.js';
import { ServiceClient } from '../../src/service/client.js';
import type { CallRecord } from '../../src/service/client.js';
import { COMPANY_MAIN, startTestEmulator } from '../helpers/test-emulator.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('ServiceHealth', () => {
  it('goes down on the first failure and up on the next answer, each change told once', () => {
    const health = new ServiceHealth();
    const seen: string[] = [];
    health.on('down', ({ since, reason }) => seen.push(`down ${since} ${reason}`));
    health.on('up', ({ at, downSince }) => seen.push(`up ${at} ${downSince}`));
    expect(health.state).toBe('unknown');
    health.noteAnswer(10);
    health.noteFailure('E1: no answer', 20);
    health.noteFailure('E1: no answer', 30);
    expect(health.state).toBe('down');
    expect(health.downSince).toBe(20);
    health.noteAnswer(40);
    health.noteAnswer(50);
    expect(seen).toEqual(['down 20 E1: no answer', 'up 40 20']);
    expect(health.lastAnswerAt).toBe(50);
    expect(health.lastFailureAt).toBe(30);
  });
});

describe('ServiceClient observers', () => {
  it('tell every call with its status and outcome, and nothing once stopped; a refused connection has no status', async () => {
    const emulator = await startTestEmulator([COMPANY_MAIN]);
    closers.push(() => emulator.close());
    const client = new ServiceClient({ baseUrl: emulator.url, timeoutMs: 2_000 });
    closers.push(() => client.close());
    const calls: CallRecord[] = [];
    const stop = client.observe((call) => calls.push(call));
    const company = COMPANY_MAIN;
    await client.listRanges({ id: company.id, apiKey: company.apiKey }, { nit: company.nit });
    await client.listRanges({ id: company.id, apiKey: 'wrong-key-0000' }, { nit: company.nit });
    stop();
    await client.listRanges({ id: company.id, apiKey: company.apiKey }, { nit: company.nit });
    expect(calls.map((c) => [c.op, c.companyId, c.httpStatus, c.outcome, c.aborted])).toEqual([
      ['E10', String(company.id), 200, 'accepted', false],
      ['E10', String(company.id), 403, 'unauthorized', false],
    ]);
    expect(JSON.stringify(calls)).not.toContain(company.apiKey);

    const gone = new ServiceClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 2_000 });
    closers.push(() => gone.close());
    const failed: CallRecord[] = [];
    gone.observe((call) => failed.push(call));
    await gone.listRanges({ id: 1, apiKey: 'k-0000' }, { nit: '1' });
    expect(failed).toHaveLength(1);
    expect(failed[0].httpStatus).toBeUndefined();
    expect(failed[0].outcome).toBe('transient');
  });
});
