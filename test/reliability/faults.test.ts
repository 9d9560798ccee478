/**
 * Reliability suite 3 in `npm test` (short versions; `npm run torture` runs
 * test/torture/faults.test.ts with minutes of outage and more documents):
 * outbox not writable and full, state folder locked by another instance, the
 * service down, a wrong key fixed by SIGHUP. Every one also searches its
 * project folder for the keys it used (suite 4).
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { recordRun } from '../helpers/torture-project.js';
import { runLockedStateScenario, runOutboxScenario } from '../torture/scenarios/faults.js';
import { runServiceDownScenario, runWrongKeyScenario } from '../torture/scenarios/service.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('faults around the daemon (short)', () => {
  test('outbox a file, then full: results stay in the ledger and are written when it is back, also across a crash', async ({
    annotate,
  }) => {
    const report = await runOutboxScenario({ documents: 10, blockedMs: 1_000 });
    recordRun('outbox (short)', report);
    await annotate(JSON.stringify(report));
    expect(report.problems).toEqual([]);
    expect(report.reportsWritten).toBeGreaterThanOrEqual(2);
  }, 120_000);

  test('a second instance on the same state folder, with its own configuration, exits 2 naming the lock while the first works on', async ({
    annotate,
  }) => {
    const report = await runLockedStateScenario({ documents: 30 });
    recordRun('locked state (short)', report);
    await annotate(JSON.stringify(report));
    expect(report.problems).toEqual([]);
  }, 60_000);

  test('the service down for 10 s, far beyond the retry budget: documents wait with backoff, none fails, and the catch-up stays within the rate', async ({
    annotate,
  }) => {
    const report = await runServiceDownScenario({
      // A retry budget (4 attempts, at most 1 s apart) far shorter than the outage.
      documents: 60,
      requestsPerSecond: 20,
      downMs: 10_000,
      retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 },
      finishTimeoutMs: 60_000,
    });
    recordRun('service down (short)', report);
    await annotate(JSON.stringify(report));
    expect(report.problems).toEqual([]);
  }, 120_000);

  test('a wrong key pauses the company; after SIGHUP with the right key everything is accepted without a burst above the rate', async ({
    annotate,
  }) => {
    const report = await runWrongKeyScenario({ documents: 40, requestsPerSecond: 10 });
    recordRun('wrong key (short)', report);
    await annotate(JSON.stringify(report));
    expect(report.problems).toEqual([]);
  }, 60_000);
});
