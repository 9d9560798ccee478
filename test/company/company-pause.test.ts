/**
 * A company's 401 pause is kept once, in its run (src/company/company-run.ts, rate/company-pause.ts):
 * a 401 to any of the company's calls pauses all of its work — its received-documents pull and its
 * submissions — and a reload with a new key resumes all of it. Real emulator over HTTP (company `other`
 * configured with a key it refuses), real SQLite ledger, real sender and pull as the daemon makes them.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OPEN_GATE } from '../../src/company/company-gate.js';
import { CompanyRun } from '../../src/company/company-run.js';
import type { CompanyConfig, Config } from '../../src/config/schema.js';
import { CompanyRate } from '../../src/rate/company-rate.js';
import { RangeSchedule } from '../../src/ranges/range-schedule.js';
import { RangeWatch } from '../../src/ranges/range-watch.js';
import { CompanyPull } from '../../src/received/company-pull.js';
import { ReceivedPuller } from '../../src/received/puller.js';
import { CompanySender } from '../../src/submit/company-sender.js';
import { invoice, jsonText } from '../helpers/documents.js';
import { TODAY, harness, makeConfig, readLog, type Harness } from '../received/helpers.js';

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (const end = Date.now() + 15_000; Date.now() < end;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Requests the emulator answered other than E12 (the received pull's): the submissions. */
function sends(x: Harness): number {
  const { requests, totalRequests } = x.emulator.stats.snapshot();
  const e12 = Object.values(requests.E12 ?? {}).reduce((a, b) => a + b, 0);
  return totalRequests - e12;
}

/** One pending invoice of `other` in the ledger (its own number). */
async function pendingInvoice(x: Harness): Promise<void> {
  const { fileId } = await x.ledger.recordFile({
    path: path.join(x.dir, 'inbox', 'a.jsonl'),
    name: 'a.jsonl',
    size: 1,
    sha256: 'x',
    kind: 'invoice',
    company: 'other',
    now: Date.now(),
  });
  const request = invoice(990_000_001);
  await x.ledger.insertDocuments(fileId, [
    {
      index: 0,
      source: { lines: [1] },
      number: 'SETP/990000001',
      ownNumber: true,
      request,
      raw: jsonText(request),
    },
  ]);
  await x.ledger.finishReading(fileId);
}

/** The run of `other` as the daemon makes it: its pause handed to its sender and its pull. */
function runOf(
  x: Harness,
  config: () => Readonly<Config>,
  firstPullDelayMs = 0,
  ranges?: RangeWatch,
): { run: CompanyRun; pulls: CompanyPull[] } {
  const company = config().companies.find((c) => c.alias === 'other') as CompanyConfig;
  const puller = new ReceivedPuller({
    ledger: x.ledger,
    client: x.client,
    config: config(),
    logger: x.logger,
    today: () => TODAY,
  });
  const pulls: CompanyPull[] = [];
  const run = new CompanyRun(company, OPEN_GATE, new CompanyRate({ requestsPerSecond: 5 }), {
    sender: (c, rate, gate, pause) =>
      new CompanySender({
        ledger: x.ledger,
        client: x.client,
        company: c,
        rate,
        gate,
        pause,
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
        pause: r.pause,
        today: () => TODAY,
        firstDelayMs: firstPullDelayMs,
      });
      pulls.push(pull);
      return ranges === undefined ? [pull] : [pull, new RangeSchedule(ranges, r, () => 3_600_000)];
    },
  });
  return { run, pulls };
}

function unauthorizedLines(x: Harness): unknown[] {
  return readLog(x.logFile).filter(
    (l) => l.level === 'error' && l.code === 'EDOC_SERVICE_UNAUTHORIZED',
  );
}

describe('a company run keeps one 401 pause', () => {
  it('a 401 to its received pull pauses its sender too: nothing is sent until a reload resumes both', async () => {
    h = await harness({ otherKey: 'wrong-key' });
    const x = h;
    let config = x.config;
    const { run, pulls } = runOf(x, () => config);
    run.start();
    await until('the pull refused', () => pulls[0]!.isPaused);
    expect(run.sender?.isPaused).toBe(true);
    expect(run.sender?.view()).toMatchObject({ paused: true });

    // a document of the company comes in: it waits, unsent, while the company is paused
    await pendingInvoice(x);
    run.wake();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sends(x)).toBe(0);
    expect(unauthorizedLines(x)).toHaveLength(1); // one line for the whole company

    config = await makeConfig(x.dir, x.emulator.url);
    run.reload(config.companies.find((c) => c.alias === 'other') as CompanyConfig, config.retry);
    expect(run.sender?.isPaused).toBe(false);
    expect(pulls[0]!.isPaused).toBe(false);
    await until('the document sent', () => sends(x) >= 1);
    await until('the pull after the reload', async () => {
      return (await x.ledger.getCursor('other')) === TODAY;
    });
    await run.close();
  });

  it('a 401 to a submission pauses its received pull too; a reload resumes both', async () => {
    h = await harness({ otherKey: 'wrong-key' });
    const x = h;
    let config = x.config;
    await pendingInvoice(x);
    // the pull's first tick is far off: the submission meets the 401 first
    const { run, pulls } = runOf(x, () => config, 60_000);
    run.start();
    await until('the submission refused', () => run.sender?.isPaused === true);
    expect(pulls[0]!.isPaused).toBe(true);
    expect(await pulls[0]!.pullNow()).toBeUndefined();
    expect(x.emulator.stats.snapshot().requests.E12).toBeUndefined(); // no page was asked for
    expect(unauthorizedLines(x)).toHaveLength(1);

    config = await makeConfig(x.dir, x.emulator.url);
    run.reload(config.companies.find((c) => c.alias === 'other') as CompanyConfig, config.retry);
    expect(pulls[0]!.isPaused).toBe(false);
    await until('the pull after the reload', async () => {
      return (await x.ledger.getCursor('other')) === TODAY;
    });
    await run.close();
  });

  it("a refused read of its numbering ranges (E10's 403) pauses nothing: it may be a NIT E1 never checks", async () => {
    // the spec's E10 403 is "invalid key, or nit does not match the company": it cannot tell a refused key
    // from a configured NIT the submissions never look at, so only the submissions' own 401 pauses
    h = await harness({ otherKey: 'wrong-key' });
    const x = h;
    const runs: CompanyRun[] = [];
    const ranges = new RangeWatch({
      runs: { get: (alias) => runs.find((r) => r.alias === alias), list: () => runs },
      client: x.client,
      logger: x.logger,
      highestUsed: async () => undefined,
      refuse: () => true,
    });
    // the pull's first tick is far off: only the range read at the run's start meets the refusal
    const { run, pulls } = runOf(x, () => x.config, 60_000, ranges);
    runs.push(run);
    run.start();
    await until(
      'the range read refused',
      () => (x.emulator.stats.snapshot().requests.E10?.['403'] ?? 0) >= 1,
    );
    await until('its warning', () =>
      readLog(x.logFile).some((l) => l.code === 'EDOC_RANGES_UNREADABLE'),
    );
    expect(run.sender?.isPaused).toBe(false);
    expect(pulls[0]!.isPaused).toBe(false);
    expect(unauthorizedLines(x)).toHaveLength(0);
    await run.close();
    await ranges.close();
  });
});
