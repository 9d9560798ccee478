/**
 * CompanySender in-process (issue 16 item 4): a real ledger, the emulator over real HTTP, a real
 * client; small tuning values instead of waiting; every wait is on a condition.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { COMPANY_SENDER_DEFAULTS } from '../../src/submit/company-sender.js';
import { senderTuning } from '../../src/submit/company-sender-options.js';
import { eventually } from '../helpers/daemon-harness.js';
import { FIRST_NUMBER, SenderHarness, type SenderSetup } from './sender-harness.js';

let h: SenderHarness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(setup: SenderSetup): Promise<SenderHarness> {
  h = await SenderHarness.start(setup);
  h.sender.start();
  return h;
}

function numbers(n: number): number[] {
  return Array.from({ length: n }, (_, i) => FIRST_NUMBER + i);
}

async function allAccepted(x: SenderHarness, n: number, timeoutMs = 15_000): Promise<void> {
  await eventually(
    async () => ((await x.states()).accepted === n ? true : undefined),
    `${n} documents accepted`,
    timeoutMs,
  );
}

async function issuedNumbers(x: SenderHarness): Promise<number[]> {
  return (await x.emulator.client.issued()).map((d) => Number(d.number)).sort((a, b) => a - b);
}

describe('CompanySender', () => {
  test('accepted: every document is sent once, committed accepted, one "document final" line each', async () => {
    const x = await start({ documents: 6 });
    await allAccepted(x, 6);
    expect(await issuedNumbers(x)).toEqual(numbers(6));
    expect((await x.documents()).map((d) => d.attempts)).toEqual([1, 1, 1, 1, 1, 1]);
    await eventually(
      () =>
        x.logLines().filter((l) => l.msg === 'document final').length === 6 ? true : undefined,
      'six final lines',
    );
    expect(
      x
        .logLines()
        .filter((l) => l.msg === 'document final')
        .every((l) => l.status === 'accepted'),
    ).toBe(true);
  });

  test('a transient 500 is retried with backoff, then accepted once', async () => {
    const x = await start({
      documents: 1,
      faults: { errorRate: 1 },
      retry: { maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 40 },
    });
    await eventually(
      async () =>
        ((await x.emulator.client.stats()).requests.E1?.['500'] ?? 0) >= 2 ? true : undefined,
      'two 500s',
    );
    await x.emulator.client.setFaults({});
    await allAccepted(x, 1);
    const [doc] = await x.documents();
    expect(doc!.attempts).toBeGreaterThanOrEqual(3);
    expect(await issuedNumbers(x)).toEqual([FIRST_NUMBER]);
    expect(x.events().filter((e) => e.type === 'retry-scheduled').length).toBe(doc!.attempts - 1);
  });

  test('a 429 slows the company down: every document accepted once, the rate halved or less, few refusals', async () => {
    const x = await start({
      documents: 24,
      faults: { rateLimitPerSecond: 3 },
      rate: { requestsPerSecond: 12, concurrency: 4 },
      retry: { maxAttempts: 12, baseDelayMs: 50, maxDelayMs: 2_000 },
    });
    expect(x.rate.current().limit).toBe(12);
    await allAccepted(x, 24, 40_000);
    expect(await issuedNumbers(x)).toEqual(numbers(24));
    const refused = (await x.emulator.client.stats()).requests.E1?.['429'] ?? 0;
    expect(refused).toBeGreaterThan(0);
    // still within the 30 s slow-down after the last 429
    expect(x.rate.current().limit).toBeLessThanOrEqual(6);
    expect(refused).toBeLessThan(24);
  }, 60_000);

  test('a 401 pauses the company with one error line, the documents pending; a reload with the right key resumes it', async () => {
    const x = await start({
      documents: 8,
      apiKey: 'not-the-key',
      rate: { requestsPerSecond: 200, concurrency: 4 },
    });
    await eventually(() => (x.sender.isPaused ? true : undefined), 'the sender paused');
    await eventually(
      async () => ((await x.states()).pending === 8 ? true : undefined),
      'every document pending again',
    );
    // the requests that met the 401 keep their attempt; the ones marked ahead were taken back unsent
    expect((await x.documents()).every((d) => d.attempts <= 1)).toBe(true);
    expect(x.events().filter((e) => e.type === 'not-sent').length).toBeGreaterThan(0);
    expect(await x.emulator.client.issued()).toEqual([]);
    const alerts = () => x.logLines().filter((l) => l.code === 'EDOC_SERVICE_UNAUTHORIZED');
    await eventually(() => (alerts().length > 0 ? true : undefined), 'the alert line');
    expect(JSON.stringify(x.logLines())).not.toContain('not-the-key');

    x.sender.update({ ...x.company, apiKey: 'test-key-1001' }, x.config.retry);
    expect(x.sender.isPaused).toBe(false);
    await allAccepted(x, 8);
    expect(await issuedNumbers(x)).toEqual(numbers(8));
    expect(alerts()).toHaveLength(1);
  });

  test('close drains the request in flight and takes back the marks made ahead whose requests never left', async () => {
    // concurrency 1: one request in flight (slow), three more marked `sending` ahead of their turn (the queue
    // holds 4C: at 20/s the rate sends fewer than that in queueAheadMs)
    const x = await start({
      documents: 8,
      faults: { latencyMs: 400 },
      rate: { requestsPerSecond: 20, concurrency: 1 },
    });
    await eventually(
      async () =>
        (await x.emulator.client.stats()).inFlight === 1 && (await x.states()).sending === 4
          ? true
          : undefined,
      'one request in flight and three marked ahead',
    );
    await x.sender.close();
    const states = await x.states();
    expect(states.sending).toBeUndefined();
    expect(states.accepted).toBe(1);
    expect(states.pending).toBe(7);
    expect(await issuedNumbers(x)).toEqual([FIRST_NUMBER]);
    // taken back: the attempt uncounted, a `not-sent` event each
    expect(
      (await x.documents()).filter((d) => d.state === 'pending').every((d) => d.attempts === 0),
    ).toBe(true);
    expect(x.events().filter((e) => e.type === 'not-sent')).toHaveLength(3);
  });

  test('a request whose rate slot comes after the gate shut (a lease not renewed in time) does not leave; it goes once the gate opens', async () => {
    // 1/s, two connections: both documents pass the gate together, the second then waits for its slot
    // inside the rate (about a second after the first answer), and the gate shuts meanwhile
    let open = true;
    const x = await start({
      documents: 2,
      rate: { requestsPerSecond: 1, concurrency: 2 },
      gate: { held: () => true, open: () => open, fenced: () => undefined },
    });
    await eventually(
      async () => ((await x.emulator.client.stats()).totalRequests >= 1 ? true : undefined),
      'the first request',
    );
    open = false;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await x.emulator.client.stats()).totalRequests).toBe(1);
    expect((await x.states()).accepted).toBe(1);
    open = true;
    await allAccepted(x, 2);
    expect(await issuedNumbers(x)).toEqual(numbers(2));
    expect((await x.emulator.client.stats()).totalRequests).toBe(2);
  });

  test('a 401 that comes while another request waits for its rate slot pauses that request too: it does not leave', async () => {
    // 1/s, two connections: both documents pass the checks together; the second waits for its slot inside
    // the rate while the first meets the 401, so the pause comes between its check and its slot
    const x = await start({
      documents: 2,
      apiKey: 'not-the-key',
      rate: { requestsPerSecond: 1, concurrency: 2 },
    });
    await eventually(() => (x.sender.isPaused ? true : undefined), 'the sender paused');
    // the slot came about a second after the first request; 2.5 s leaves it time to have left
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await x.emulator.client.stats()).totalRequests).toBe(1);
    await eventually(
      async () => ((await x.states()).pending === 2 ? true : undefined),
      'both documents pending again',
    );
    expect(await x.emulator.client.issued()).toEqual([]);
  });

  test('close while the feeder reads the ledger ends the feeder at once: it does not go to sleep after close (idleMs, a minute)', async () => {
    // nothing due: the feeder's first read finds nothing, and it would sleep idleMs; close comes while that read is under way
    h = await SenderHarness.start({ documents: 0, tuning: { idleMs: 60_000 } });
    h.sender.start();
    const closed = await Promise.race([
      h.sender.close().then(() => 'closed'),
      new Promise<string>((resolve) => {
        setTimeout(() => resolve('still closing'), 10_000).unref();
      }),
    ]);
    expect(closed).toBe('closed');
    expect(h.logLines().filter((l) => l.level === 'error' || l.level === 50)).toEqual([]);
  });

  test('close while requests wait for their turn (a company just taken over, its rate held quiet): they stop waiting, none is sent, the marks are taken back', async () => {
    h = await SenderHarness.start({
      documents: 4,
      rate: { requestsPerSecond: 200, concurrency: 2 },
    });
    h.rate.holdFor(60_000);
    h.sender.start();
    const x = h;
    await eventually(
      async () => ((await x.states()).sending === 4 ? true : undefined),
      'four marked ahead, waiting for the rate',
    );
    const closed = await Promise.race([
      x.sender.close().then(() => 'closed'),
      new Promise<string>((resolve) => {
        setTimeout(() => resolve('still closing'), 10_000).unref();
      }),
    ]);
    expect(closed).toBe('closed');
    expect(await x.states()).toEqual({ pending: 4 });
    expect(await issuedNumbers(x)).toEqual([]);
    expect(x.logLines().some((l) => l.msg === 'stop: aborting requests still in flight')).toBe(
      false,
    );
  });

  test('close aborts a request still in flight after drainTimeoutMs; the numbered document stays pending, maybe delivered', async () => {
    const x = await start({
      documents: 1,
      faults: { latencyMs: 30_000 },
      tuning: { drainTimeoutMs: 100 },
    });
    await eventually(
      async () => ((await x.emulator.client.stats()).inFlight === 1 ? true : undefined),
      'the request in flight',
    );
    await x.sender.close();
    const [doc] = await x.documents();
    expect(doc).toMatchObject({ state: 'pending', attempts: 1, maybeDelivered: true });
    expect(x.logLines().some((l) => l.msg === 'stop: aborting requests still in flight')).toBe(
      true,
    );
  });

  test('verdicts of numbered documents ride along with the next batch of marks (one commit), the last one at once', async () => {
    // No verdict may wait for the lazy timer: with a minute of it, every verdict commits with a batch of marks or the last one's.
    const x = await start({
      documents: 12,
      rate: { requestsPerSecond: 500, concurrency: 1 },
      tuning: { lazyCommitMs: 60_000 },
    });
    await allAccepted(x, 12);
    const events = x.events();
    const markCommits = new Set(events.filter((e) => e.type === 'sending').map((e) => e.at));
    const verdicts = events.filter((e) => e.type === 'accepted');
    expect(verdicts).toHaveLength(12);
    const last = Math.max(...verdicts.map((e) => e.at));
    const alone = verdicts.filter((e) => !markCommits.has(e.at) && e.at !== last);
    expect(alone).toEqual([]);
    // batched: fewer commits than verdicts
    expect(new Set(verdicts.map((e) => e.at)).size).toBeLessThan(12);
  });

  test('requests in flight never exceed rate.concurrency, and the rate holds in every second', async () => {
    const x = await start({
      documents: 30,
      faults: { latencyMs: 60 },
      rate: { requestsPerSecond: 15, concurrency: 3 },
    });
    await allAccepted(x, 30);
    const stats = await x.emulator.client.stats();
    expect(stats.peakConcurrency).toBeLessThanOrEqual(3);
    expect(stats.peakConcurrency).toBeGreaterThanOrEqual(2);
    expect(stats.busiestSecond['1001']).toBeLessThanOrEqual(15);
  });

  test('tuning that cannot work is refused early; the defaults are one object', () => {
    expect(() => senderTuning({ queuedPerConnection: 1, refillAtPerConnection: 1 })).toThrow(
      /queuedPerConnection \(1\) must be greater than refillAtPerConnection \(1\)/,
    );
    expect(senderTuning({ lazyCommitMs: 5 })).toEqual({
      ...COMPANY_SENDER_DEFAULTS,
      lazyCommitMs: 5,
    });
  });
});
