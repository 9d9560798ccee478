/**
 * A company's run (src/company/company-run.ts) owns its sender and its received-documents pull: both
 * start with it, a loss or a hand-over stops both (a pull in flight aborted, its cursor unmoved), a
 * start after that runs both again, a reload lifts the pull's 401 pause and pulls at once, and close
 * is final and idempotent. Real emulator over HTTP, real SQLite ledger, real sender and pull.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OPEN_GATE, type CompanyGate } from '../../src/company/company-gate.js';
import { CompanyRun } from '../../src/company/company-run.js';
import type { CompanyConfig, Config } from '../../src/config/schema.js';
import { CompanyRate } from '../../src/rate/company-rate.js';
import { CompanyPull } from '../../src/received/company-pull.js';
import { ReceivedPuller } from '../../src/received/puller.js';
import { CompanySender } from '../../src/submit/company-sender.js';
import { TODAY, harness, makeConfig, readLog, type Harness } from '../received/helpers.js';

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setFaults(x: Harness, faults: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${x.emulator.url}/_emulator/faults`, {
    method: 'POST',
    body: JSON.stringify(faults),
  });
  expect(res.status).toBe(200);
}

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (const end = Date.now() + 15_000; Date.now() < end;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The run of `alias` made as the daemon makes it: the pipeline's sender, the daemon's pull as its one job. */
function runOf(
  x: Harness,
  alias: string,
  options: { config?: () => Readonly<Config>; gate?: CompanyGate } = {},
): { run: CompanyRun; pulls: CompanyPull[] } {
  const config = options.config ?? (() => x.config);
  const company = config().companies.find((c) => c.alias === alias) as CompanyConfig;
  const puller = new ReceivedPuller({
    ledger: x.ledger,
    client: x.client,
    config: config(),
    logger: x.logger,
    today: () => TODAY,
  });
  const pulls: CompanyPull[] = [];
  const run = new CompanyRun(
    company,
    options.gate ?? OPEN_GATE,
    new CompanyRate({ requestsPerSecond: company.rate.requestsPerSecond }),
    {
      sender: (c, rate, gate) =>
        new CompanySender({
          ledger: x.ledger,
          client: x.client,
          company: c,
          rate,
          gate,
          retry: config().retry,
          pos: config().kinds.pos,
          logger: x.logger,
          onChanged: () => undefined,
        }),
      jobs: (r) => {
        const pull = new CompanyPull({
          ledger: x.ledger,
          puller,
          logger: x.logger,
          company: () => r.company,
          config,
          gate: r.gate,
          rate: r.rate,
          today: () => TODAY,
        });
        pulls.push(pull);
        return [pull];
      },
    },
  );
  return { run, pulls };
}

describe('CompanyRun', () => {
  it('a loss stops its sender and aborts its pull in flight; a start runs both again; close is final and idempotent', async () => {
    h = await harness();
    const x = h;
    await setFaults(x, { latencyMs: 400, allEndpoints: true });
    const { run, pulls } = runOf(x, 'main');
    expect(run.state).toBe('ready');
    run.start();
    expect(run.state).toBe('running');
    expect(run.sender).toBeInstanceOf(CompanySender);
    // the pull's first page request is inside the emulator's latency
    await until('the pull in flight', () => x.emulator.stats.snapshot().inFlight >= 1);

    const started = Date.now();
    await run.lose();
    // LOST_DRAIN_MS is 1 s: the sender had nothing in flight, the pull is aborted at once
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(run.state).toBe('ready');
    expect(run.sender).toBeUndefined();
    expect(await x.ledger.getCursor('main')).toBeUndefined();
    const stopped = readLog(x.logFile).filter((l) => l.msg === 'received pull stopped');
    expect(stopped.map((l) => l.company)).toEqual(['main']);
    // the aborted request ends at the emulator after its latency; nothing new comes after it
    // (counted there when its 400 ms latency ends)
    await new Promise((resolve) => setTimeout(resolve, 600));
    const after = x.emulator.stats.snapshot().totalRequests;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(x.emulator.stats.snapshot().totalRequests).toBe(after);

    await setFaults(x, {});
    run.start();
    expect(pulls).toHaveLength(2); // a new pull per start
    await until('the pull of the second start', async () => {
      return (await x.ledger.getCursor('main')) === TODAY;
    });
    expect(run.sender).toBeInstanceOf(CompanySender);

    await Promise.all([run.close(), run.close()]);
    expect(run.state).toBe('closed');
    run.start();
    expect(run.state).toBe('closed');
    expect(run.sender).toBeUndefined();
    expect(pulls).toHaveLength(2);
  });

  it('a reload lifts its pull 401 pause and pulls at once with the new key', async () => {
    h = await harness({ otherKey: 'wrong-key' });
    const x = h;
    let config = x.config;
    const { run, pulls } = runOf(x, 'other', { config: () => config });
    run.start();
    await until('the 401 pause', () => pulls[0].isPaused);
    expect(await x.ledger.getCursor('other')).toBeUndefined();

    config = await makeConfig(x.dir, x.emulator.url);
    run.reload(config.companies.find((c) => c.alias === 'other') as CompanyConfig, config.retry);
    expect(pulls[0].isPaused).toBe(false);
    expect(run.company.apiKey).toBe('key-2002');
    await until('the pull after the reload', async () => {
      return (await x.ledger.getCursor('other')) === TODAY;
    });
    expect(pulls).toHaveLength(1); // reloaded, not restarted
    await run.close();
  });

  it("its pull's pages take slots of the run's rate: a 429 to a page slows the rate its sender shares", async () => {
    h = await harness();
    const x = h;
    await setFaults(x, { rateLimitPerSecond: 1 });
    const { run } = runOf(x, 'main');
    const configured = run.rate.current().limit;
    expect(configured).toBeGreaterThan(1);
    run.start();
    await until(
      'a 429 to a page',
      () => (x.emulator.stats.snapshot().requests.E12?.['429'] ?? 0) > 0,
    );
    await until('the rate slowed', () => run.rate.current().limit < configured);
    await run.close();
  });

  it('a closed gate starts no pull: nothing is asked of the service until it opens', async () => {
    h = await harness();
    const x = h;
    let open = false;
    const gate: CompanyGate = { held: () => true, open: () => open, fenced: () => undefined };
    const { run, pulls } = runOf(x, 'main', { gate });
    run.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(x.emulator.stats.snapshot().totalRequests).toBe(0);
    open = true;
    await pulls[0].pullNow();
    expect(await x.ledger.getCursor('main')).toBe(TODAY);
    await run.close();
  });

  it('a page that waits for its rate slot while the gate shuts is not asked for; the next pull, the gate open, reads from the same cursor', async () => {
    h = await harness();
    const x = h;
    let open = true;
    const gate: CompanyGate = { held: () => true, open: () => open, fenced: () => undefined };
    const { run, pulls } = runOf(x, 'main', { gate });
    const before = await x.ledger.getCursor('main');
    run.rate.holdFor(600); // the first page waits inside the rate (the pull asked the gate before it)
    run.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    open = false; // shut while it waits (a lease not renewed in time)
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(x.emulator.stats.snapshot().totalRequests).toBe(0);
    expect(await x.ledger.getCursor('main')).toBe(before);
    open = true;
    await pulls[0].pullNow();
    expect(x.emulator.stats.snapshot().totalRequests).toBeGreaterThan(0);
    expect(await x.ledger.getCursor('main')).toBe(TODAY);
    await run.close();
  });
});
