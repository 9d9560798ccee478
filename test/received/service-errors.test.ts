import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchPage } from '../../src/received/fetch-page.js';
import { ReceivedPuller } from '../../src/received/puller.js';
import {
  TODAY,
  companyPulls,
  harness,
  makeConfig,
  readIndex,
  readLog,
  type Harness,
} from './helpers.js';

const WINDOW = { from: '2026-03-01', to: TODAY };
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

function e12(x: Harness): Record<string, number> {
  return x.emulator.stats.snapshot().requests.E12 ?? {};
}

async function setFaults(x: Harness, faults: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${x.emulator.url}/_emulator/faults`, {
    method: 'POST',
    body: JSON.stringify(faults),
  });
  expect(res.status).toBe(200);
}

function page(x: Harness, window: { from: string; to: string }) {
  return fetchPage({
    client: x.client,
    company: x.config.companies[0],
    window,
    page: 1,
    perPage: 7,
    retry: { attempts: 4, baseDelayMs: 1, maxDelayMs: 5 },
    logger: x.logger,
  });
}

describe('E12 failures', () => {
  it('E12 answers 401 for a wrong key: only that company is paused, with one error line, until reload', async () => {
    h = await harness({ otherKey: 'wrong-key' });
    const x = h;
    const scheduler = companyPulls(x, { today: () => TODAY });
    try {
      const first = await scheduler.pullNow();
      expect(first.map((r) => [r.company, r.complete, r.newDocs])).toEqual([
        ['main', true, 40],
        ['other', false, 0],
      ]);
      expect(scheduler.isPaused('other')).toBe(true);
      expect(scheduler.isPaused('main')).toBe(false);

      const second = await scheduler.pullNow();
      expect(second.map((r) => [r.company, r.complete, r.window.from])).toEqual([
        ['main', true, '2026-05-17'],
      ]);
      const errors = readLog(x.logFile).filter((l) => l.level === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        company: 'other',
        code: 'EDOC_SERVICE_UNAUTHORIZED',
        httpStatus: 401,
      });
      expect(String(errors[0].msg)).toMatch(/PAUSED for company other/);
      expect(JSON.stringify(readLog(x.logFile))).not.toContain('wrong-key');
      expect(await x.ledger.getCursor('other')).toBeUndefined();

      scheduler.reload(await makeConfig(x.dir, x.emulator.url));
      expect(scheduler.isPaused('other')).toBe(false);
      const [fixed] = await scheduler.pullNow('other');
      expect(fixed).toMatchObject({ company: 'other', complete: true, newDocs: 5 });
      expect(readIndex(path.join(x.outbox, 'other')).rows).toHaveLength(5);
    } finally {
      await scheduler.close();
    }
  });

  it('E12 answers 500 for a date not in yyyy-MM-dd: reported as a bad window, not retried', async () => {
    h = await harness();
    const result = await page(h, { from: '2026/03/01', to: TODAY });
    expect(result).toMatchObject({
      ok: false,
      stop: 'bad-window',
      code: 'EDOC_RECEIVED_BAD_WINDOW',
      httpStatus: 500,
    });
    expect(result.ok ? '' : result.message).toContain("start_date='2026/03/01'");
    expect(e12(h)).toEqual({ 500: 1 });
  });

  it('E12 answers the framework 400 (not an envelope) without a date: reported with its body, not retried', async () => {
    h = await harness();
    const result = await page(h, { from: '', to: TODAY });
    expect(result).toMatchObject({
      ok: false,
      stop: 'bad-window',
      code: 'EDOC_RECEIVED_BAD_WINDOW',
      httpStatus: 400,
    });
    expect(result.ok ? '' : result.message).toContain('Bad Request');
    expect(e12(h)).toEqual({ 400: 1 });
  });

  it('transient failures are retried with backoff, then the pull stops with the cursor unmoved until the next one', async () => {
    h = await harness();
    const x = h;
    await setFaults(x, { errorRate: 1, allEndpoints: true });
    const p = new ReceivedPuller({
      ledger: x.ledger,
      client: x.client,
      config: x.config,
      logger: x.logger,
      today: () => TODAY,
    });
    const failed = await p.pullCompany(x.config.companies[0], WINDOW);
    expect(failed).toMatchObject({
      complete: false,
      stoppedBy: 'unreachable',
      pages: 0,
      cursor: undefined,
    });
    expect(failed.errors).toEqual([
      expect.objectContaining({ code: 'EDOC_SERVICE_UNREACHABLE', httpStatus: 500 }),
    ]);
    expect(e12(x)).toEqual({ 500: 4 });
    expect(
      readLog(x.logFile).filter((l) => String(l.msg).endsWith('failed; retrying')),
    ).toHaveLength(3);
    expect(readLog(x.logFile).find((l) => l.msg === 'received pull did not finish')).toMatchObject({
      company: 'main',
      code: 'EDOC_SERVICE_UNREACHABLE',
      level: 'error',
      new: 0,
    });

    await setFaults(x, { errorRate: 0.3, allEndpoints: true, randomSeed: 7 });
    const ok = await p.pullCompany(x.config.companies[0], WINDOW);
    expect(ok).toMatchObject({ complete: true, newDocs: 40, cursor: TODAY });
    expect(e12(x)[500]).toBeGreaterThan(4);
  });
});

describe('company pulls lifecycle', () => {
  it('start() pulls every company on its timer; close() stops it and is safe to call twice', async () => {
    h = await harness();
    const x = h;
    const scheduler = companyPulls(x, { today: () => TODAY });
    scheduler.start();
    const deadline = Date.now() + 10_000;
    while (
      ((await x.ledger.getCursor('main')) !== TODAY ||
        (await x.ledger.getCursor('other')) !== TODAY) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await x.ledger.getCursor('main')).toBe(TODAY);
    expect(await x.ledger.getCursor('other')).toBe(TODAY);
    await Promise.all([scheduler.close(), scheduler.close()]);
    const requests = x.emulator.stats.snapshot().totalRequests;
    await new Promise((r) => setTimeout(r, 200));
    expect(x.emulator.stats.snapshot().totalRequests).toBe(requests);
    expect(await scheduler.pullNow()).toEqual([]);
  });

  it('received.enabled false: start() pulls nothing', async () => {
    h = await harness({ received: { enabled: false } });
    const scheduler = companyPulls(h);
    scheduler.start();
    await new Promise((r) => setTimeout(r, 200));
    await scheduler.close();
    expect(h.emulator.stats.snapshot().totalRequests).toBe(0);
  });
});

describe('company pulls: close during a pull', () => {
  it('close() aborts a pull in flight: it resolves promptly and the cursor stays where it was', async () => {
    h = await harness();
    const x = h;
    await setFaults(x, { latencyMs: 300, allEndpoints: true });
    const scheduler = companyPulls(x, { today: () => TODAY });
    scheduler.start();
    // Both companies' first page requests are inside the emulator's latency.
    const deadline = Date.now() + 10_000;
    while (x.emulator.stats.snapshot().inFlight < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await scheduler.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await x.ledger.getCursor('main')).toBeUndefined();
    const stopped = readLog(x.logFile).filter((l) => l.msg === 'received pull stopped');
    expect(stopped.map((l) => l.company).sort()).toEqual(['main', 'other']);
    expect(readLog(x.logFile).filter((l) => l.level === 'error')).toEqual([]);
  });
});
