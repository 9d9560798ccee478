/**
 * The one owner of a company's rate (issue 16 item 2): its slots, dated when a request's answer came; the
 * 429 slow-down; one per company from `CompanyRates`, borrowed explicitly by the received-documents
 * puller against the emulator over real HTTP.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import {
  CompanyRate,
  CompanyRates,
  COMPANY_RATE_DEFAULTS,
  RequestNotStarted,
} from '../../src/rate/company-rate.js';
import { ReceivedPuller } from '../../src/received/puller.js';
import { TODAY, harness, type Harness } from '../received/helpers.js';

describe('CompanyRate', () => {
  test("a slot is dated when its request's answer came, not when it was taken or left", async () => {
    let clock = 0;
    const rate = new CompanyRate({ requestsPerSecond: 1, now: () => clock });
    // the slot is taken at 0, the request leaves at 20, its answer comes at 600
    await rate.send(async () => {
      clock = 600;
      return { httpStatus: 200 };
    });
    expect(rate.waitMs()).toBe(1000 + COMPANY_RATE_DEFAULTS.marginMs);
  });

  test('mayStart is asked once the slot came: no, and the request never starts (RequestNotStarted), its slot counted', async () => {
    let clock = 0;
    const rate = new CompanyRate({ requestsPerSecond: 1, marginMs: 0, now: () => clock });
    await rate.send(async () => ({ httpStatus: 200 })); // its slot ends at 0: the next one at 1000
    let may = true;
    let started = false;
    const second = rate.send(
      async () => {
        started = true;
        return { httpStatus: 200 };
      },
      undefined,
      () => may,
    );
    may = false; // the gate shuts while the second waits for its slot
    clock = 1_000;
    await expect(second).rejects.toBeInstanceOf(RequestNotStarted);
    expect(started).toBe(false);
    expect(rate.waitMs()).toBe(1000);
    // a gate open when the slot comes: sent as before
    clock = 2_000;
    await expect(
      rate.send(
        async () => ({ httpStatus: 200 }),
        undefined,
        () => true,
      ),
    ).resolves.toEqual({
      httpStatus: 200,
    });
  });

  test('a request that never left (refused connection) counts from when the attempt ended', async () => {
    let clock = 0;
    const rate = new CompanyRate({ requestsPerSecond: 1, marginMs: 0, now: () => clock });
    await rate.send(async () => {
      clock = 300;
      return { httpStatus: undefined };
    });
    expect(rate.waitMs()).toBe(1000);
  });

  test('while every slot is in flight the next request waits for one to end, then a window after it', async () => {
    let clock = 0;
    const rate = new CompanyRate({ requestsPerSecond: 1, marginMs: 0, now: () => clock });
    let answer!: () => void;
    const first = rate.send(
      () =>
        new Promise<{ httpStatus: number }>((resolve) => {
          answer = () => resolve({ httpStatus: 200 });
        }),
    );
    const order: string[] = [];
    const second = rate.send(async () => {
      order.push(`second left at ${clock}`);
      return { httpStatus: 200 };
    });
    await new Promise((resolve) => setTimeout(resolve, 60)); // several polls while the first is in flight
    expect(order).toEqual([]);
    clock = 5_000; // the first answer comes late (a stalled service): the window counts from here
    answer();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(order).toEqual([]);
    expect(rate.waitMs()).toBe(1000);
    clock = 6_000;
    await second;
    expect(order).toEqual(['second left at 6000']);
  });

  test("holdFor: no request starts before the hold ends (a take-over's quiet time); it only ever lengthens", async () => {
    let clock = 0;
    const rate = new CompanyRate({ requestsPerSecond: 100, now: () => clock });
    rate.holdFor(800);
    rate.holdFor(300);
    rate.holdFor(0);
    expect(rate.waitMs()).toBe(800);
    const sent = rate.send(async () => ({ httpStatus: 200, at: clock }));
    clock = 800;
    await expect(sent).resolves.toEqual({ httpStatus: 200, at: 800 });
    expect(rate.waitMs()).toBe(0);
  });

  test('quietForMs: Infinity before any request, 0 while one is in flight, then the time since the last answer', async () => {
    let clock = 1_000;
    const rates = new CompanyRates({ now: () => clock });
    expect(rates.quietForMs('main')).toBe(Number.POSITIVE_INFINITY);
    const rate = rates.of({ alias: 'main', rate: { requestsPerSecond: 5 } });
    expect(rate.quietForMs()).toBe(Number.POSITIVE_INFINITY);
    let answer!: () => void;
    const sent = rate.send(
      () =>
        new Promise<{ httpStatus: number }>((resolve) => {
          answer = () => resolve({ httpStatus: 200 });
        }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    clock = 1_500;
    expect(rate.quietForMs()).toBe(0);
    answer();
    await sent;
    clock = 2_300;
    expect(rates.quietForMs('main')).toBe(800);
  });

  test('a reload keeps the window: requests in flight or just answered still count under the new rate', async () => {
    // found by an outsider: configure made a new, empty window, and a reload mid-burst let 15-20 requests
    // of a 10/s company into one second at the service
    let clock = 0;
    const rate = new CompanyRate({ requestsPerSecond: 10, marginMs: 0, now: () => clock });
    const answers: (() => void)[] = [];
    const sends = Array.from({ length: 10 }, () =>
      rate.send(
        () =>
          new Promise<{ httpStatus: number }>((resolve) => {
            answers.push(() => resolve({ httpStatus: 200 }));
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(rate.waitMs()).toBeGreaterThan(0); // every slot is in flight
    rate.configure(10.5); // the same whole limit
    expect(rate.waitMs()).toBeGreaterThan(0); // still: the ten in flight count
    clock = 50;
    for (const answer of answers.splice(0)) answer();
    await Promise.all(sends);
    clock = 100;
    rate.configure(5); // fewer: the next waits until six of the ten answered at 50 left the window
    expect(rate.waitMs()).toBe(950);
    rate.configure(20); // more: ten more may go now
    expect(rate.waitMs()).toBe(0);
  });

  test("tookOver (cluster): no request before one window past the last owner's last start, made or not yet made", async () => {
    let clock = 10_000;
    const rates = new CompanyRates({ now: () => clock, marginMs: 0 });
    const made = rates.of({ alias: 'made', rate: { requestsPerSecond: 5 } });
    rates.tookOver('made', -300); // its last owner's last start was 300 ms before the claim
    expect(made.waitMs()).toBe(700);
    rates.tookOver('never', Number.NEGATIVE_INFINITY); // never had an owner: nothing to wait for
    expect(rates.of({ alias: 'never', rate: { requestsPerSecond: 5 } }).waitMs()).toBe(0);
    rates.tookOver('later', -100); // taken before its rate was first asked for
    clock += 400;
    expect(rates.of({ alias: 'later', rate: { requestsPerSecond: 5 } }).waitMs()).toBe(500);
    const slow = rates.of({ alias: 'slow', rate: { requestsPerSecond: 0.5 } }); // one request per 2 s
    rates.tookOver('slow', 0);
    expect(slow.waitMs()).toBe(2_000);
  });

  test('a 429 halves the rate for slowDownMs from the last one; the configured rate applies again after', async () => {
    let clock = 0;
    const rate = new CompanyRate({ requestsPerSecond: 8, slowDownMs: 5_000, now: () => clock });
    await rate.send(async () => ({ httpStatus: 429 }));
    expect(rate.current().limit).toBe(4);
    clock = 4_999;
    expect(rate.current().limit).toBe(4);
    clock = 5_000;
    expect(rate.current().limit).toBe(8);
  });

  test('one rate per company; a borrower with an older configuration does not set it back; configure applies a new rate', () => {
    const rates = new CompanyRates({ now: () => 0 });
    const main = rates.of({ alias: 'main', rate: { requestsPerSecond: 4 } });
    main.refused();
    expect(rates.of({ alias: 'main', rate: { requestsPerSecond: 4 } })).toBe(main);
    expect(rates.of({ alias: 'other', rate: { requestsPerSecond: 4 } })).not.toBe(main);
    main.configure(4); // the same rate: the window and its slow-down stay
    expect(main.current().limit).toBe(2);
    main.configure(6); // the sender applies a reload
    expect(main.current().limit).toBe(6);
    rates.of({ alias: 'main', rate: { requestsPerSecond: 4 } }); // a pull begun before the reload
    expect(main.current().limit).toBe(6);
  });

  test('waiting for a slot ends when the signal aborts: the request goes ahead and ends as aborted', async () => {
    const rate = new CompanyRate({ requestsPerSecond: 0.01 }); // one request per 100 s
    await rate.send(async () => ({ httpStatus: 200 }));
    const stop = new AbortController();
    const second = rate.send(
      async () => ({ httpStatus: stop.signal.aborted ? undefined : 200 }),
      stop.signal,
    );
    stop.abort();
    await expect(second).resolves.toEqual({ httpStatus: undefined });
  });
});

describe("the received-documents puller borrows the company's rate", () => {
  let h: Harness | undefined;

  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  function withRate(config: Readonly<Config>, requestsPerSecond: number): Readonly<Config> {
    return {
      ...config,
      companies: config.companies.map((c) => ({
        ...c,
        rate: { requestsPerSecond, concurrency: 1 },
      })),
    };
  }

  async function setFaults(x: Harness, faults: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${x.emulator.url}/_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify(faults),
    });
    expect(res.status).toBe(200);
  }

  test("every page request takes a slot of the company's rate: never more than the rate in any second", async () => {
    h = await harness();
    const config = withRate(h.config, 3);
    const rates = new CompanyRates();
    const puller = new ReceivedPuller({
      ledger: h.ledger,
      client: h.client,
      config,
      logger: h.logger,
      today: () => TODAY,
    });
    const result = await puller.pullCompany(
      config.companies[0]!,
      { from: '2026-03-01', to: TODAY },
      { rate: rates.of(config.companies[0]!) },
    );
    expect(result).toMatchObject({ complete: true, newDocs: 40 });
    const stats = h.emulator.stats.snapshot();
    expect(stats.requests.E12?.['200']).toBeGreaterThan(3);
    expect(stats.busiestSecond['1001']).toBeLessThanOrEqual(3);
  }, 30_000);

  test('a 429 answered to a page slows the whole company: the rate its sender shares is halved', async () => {
    h = await harness();
    await setFaults(h, { rateLimitPerSecond: 1 });
    const config = withRate(h.config, 4);
    const rates = new CompanyRates();
    const shared = rates.of(config.companies[0]!); // what the daemon hands the company's sender
    const puller = new ReceivedPuller({
      ledger: h.ledger,
      client: h.client,
      config,
      logger: h.logger,
      today: () => TODAY,
      retry: { attempts: 10, baseDelayMs: 5, maxDelayMs: 20 },
    });
    const result = await puller.pullCompany(
      config.companies[0]!,
      { from: '2026-04-01', to: TODAY },
      { rate: shared },
    );
    expect(result).toMatchObject({ complete: true });
    expect(h.emulator.stats.snapshot().requests.E12?.['429']).toBeGreaterThan(0);
    expect(shared.current().limit).toBeLessThan(4);
  }, 30_000);
});
