/** Fault injection and statistics: what a client of a flaky service must survive, provable from the stats. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { AUTH, call, documents, emulator, fixture, setFaults } from './helpers.js';

type Json = Record<string, unknown>;
let emu: RunningEmulator;
const secondCompany = (seed: { companies: Json[] }): void => {
  seed.companies.push({
    ...seed.companies[0],
    id: 1002,
    apiKey: 'key-1002',
    receivedDocuments: [],
  });
};
beforeEach(async () => {
  emu = await emulator(secondCompany);
});
afterEach(async () => {
  await emu.close();
});

const stats = async (): Promise<Json> =>
  (await fetch(`${emu.url}/_emulator/stats`)).json() as Promise<Json>;
const list = (headers: Record<string, string> = AUTH) =>
  call(emu, 'E10', { headers, query: { nit: '900123456' } });

describe('faults', () => {
  test('drop-after-commit records the accepted document although the client gets a socket error', async () => {
    await setFaults(emu, { dropAfterCommitRate: 1 });
    await expect(
      call(emu, 'E1', { headers: AUTH, body: fixture('invoice.json') }),
    ).rejects.toThrow();
    const docs = await documents(emu);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ prefix: 'SETP', number: '990000001', accepted: true });
    await setFaults(emu, {});
    const again = await call(emu, 'E1', { headers: AUTH, body: fixture('invoice.json') });
    expect((again.body as Json).Errors).toEqual([
      'Regla: 90, Rechazo: Documento procesado anteriormente.',
    ]);
    expect(((await stats()).faultsInjected as Json)['drop-after-commit']).toBe(1);
  });

  test('reset destroys the connection before anything is recorded', async () => {
    await setFaults(emu, { resetRate: 1 });
    await expect(
      call(emu, 'E1', { headers: AUTH, body: fixture('invoice.json') }),
    ).rejects.toThrow();
    expect(await documents(emu)).toEqual([]);
  });

  test('answers 429 with Retry-After: 1 past rateLimitPerSecond in a sliding second, per company', async () => {
    await setFaults(emu, { rateLimitPerSecond: 2 });
    const statuses = [(await list()).status, (await list()).status];
    const third = await list();
    expect(statuses).toEqual([200, 200]);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect((await list({ 'x-api-key': 'key-1002', 'x-company-id': '1002' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect((await list()).status).toBe(200);
    expect((await stats()).busiestSecond).toMatchObject({ 1001: 3, 1002: 1 });
  });

  test('a randomSeed makes the drawn faults repeat', async () => {
    const run = async (target: RunningEmulator): Promise<number[]> => {
      await setFaults(target, {
        errorRate: 0.3,
        badGatewayRate: 0.2,
        allEndpoints: true,
        randomSeed: 42,
      });
      const out: number[] = [];
      for (let i = 0; i < 20; i += 1)
        out.push(
          (await call(target, 'E10', { headers: AUTH, query: { nit: '900123456' } })).status,
        );
      return out;
    };
    const first = await run(emu);
    expect(new Set(first).size).toBeGreaterThan(1);
    expect(await run(emu)).toEqual(first);
    const other = await emulator();
    try {
      expect(await run(other)).toEqual(first);
    } finally {
      await other.close();
    }
  });

  test('faults apply to E1–E6 only unless allEndpoints is set', async () => {
    await setFaults(emu, { errorRate: 1 });
    expect((await list()).status).toBe(200);
    expect(
      (await call(emu, 'E5', { headers: AUTH, body: fixture('support-document.json') })).status,
    ).toBe(500);
  });

  test('latency and jitter delay the answer', async () => {
    await setFaults(emu, { latencyMs: 120, jitterMs: 30, allEndpoints: true });
    const started = Date.now();
    await list();
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  test('the fault set is validated and replaced as a whole', async () => {
    const bad = await fetch(`${emu.url}/_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify({ errorRate: 2 }),
    });
    expect(bad.status).toBe(400);
    await setFaults(emu, { errorRate: 1, latencyMs: 5 });
    await setFaults(emu, { latencyMs: 1 });
    expect(await (await fetch(`${emu.url}/_emulator/faults`)).json()).toMatchObject({
      errorRate: 0,
      latencyMs: 1,
    });
  });
});

describe('stats', () => {
  test('counts requests per endpoint and status, peak concurrency, and resets', async () => {
    await setFaults(emu, { latencyMs: 100, allEndpoints: true });
    await Promise.all(Array.from({ length: 5 }, () => list()));
    await call(emu, 'E10', { headers: AUTH });
    const s = await stats();
    expect(s.requests).toMatchObject({ E10: { 200: 5, 400: 1 } });
    expect(s.peakConcurrency as number).toBeGreaterThanOrEqual(5);
    await fetch(`${emu.url}/_emulator/reset-stats`, { method: 'POST' });
    expect((await stats()).totalRequests).toBe(0);
  });

  test('in flight by operation: requests held by latency are counted under their operation until answered', async () => {
    await setFaults(emu, { latencyMs: 400, allEndpoints: true });
    const held = Promise.all([list(), list()]);
    let during: Record<string, unknown> = {};
    for (
      let i = 0;
      i < 50 && (during.inFlightByOperation as Record<string, number>)?.E10 !== 2;
      i++
    ) {
      during = await stats();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(during.inFlightByOperation).toEqual({ E10: 2 });
    await held;
    expect((await stats()).inFlightByOperation).toEqual({});
  });

  test('documents can be filtered by company', async () => {
    await call(emu, 'E1', { headers: AUTH, body: fixture('invoice.json') });
    await call(emu, 'E1', {
      headers: { 'x-api-key': 'key-1002', 'x-company-id': '1002' },
      body: fixture('invoice.json'),
    });
    expect((await documents(emu, '?company=1002')).map((d) => d.company)).toEqual([1002]);
    expect(await documents(emu)).toHaveLength(2);
  });
});

describe('exactly once', () => {
  test('ten concurrent submissions of one number give one acceptance and nine rule 90 rejections', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        call(emu, 'E1', { headers: AUTH, body: fixture('invoice.json') }),
      ),
    );
    const valid = results.filter((r) => (r.body as Json).IsValid === true);
    expect(valid).toHaveLength(1);
    expect(await documents(emu, '?company=1001')).toHaveLength(10);
    expect((await documents(emu)).filter((d) => d.accepted)).toHaveLength(1);
  });
});
