/**
 * Issue 8 reliability suite 3, full size (`npm run torture`): the service down
 * for 3 minutes under the shipped retry defaults, more documents behind a full
 * or missing outbox and a wrong key; the short versions run in `npm test`.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { recordRun } from '../helpers/torture-project.js';
import { runLockedStateScenario, runOutboxScenario } from './scenarios/faults.js';
import { runServiceDownScenario, runWrongKeyScenario } from './scenarios/service.js';
import { show } from './show.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('faults around the daemon (torture)', () => {
  test('the service down for 3 minutes with the default retry policy: documents wait, none fails, the catch-up stays within the rate', async ({
    annotate,
  }) => {
    const report = await runServiceDownScenario({
      documents: 400,
      requestsPerSecond: 20,
      downMs: 180_000,
      retry: { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 60_000 },
      finishTimeoutMs: 180_000,
    });
    recordRun('service down (torture)', report);
    await show(annotate, JSON.stringify(report));
    expect(report.problems).toEqual([]);
  }, 600_000);

  test('outbox a file, then full, with 200 documents per file', async ({ annotate }) => {
    const report = await runOutboxScenario({ documents: 200, blockedMs: 8_000 });
    recordRun('outbox (torture)', report);
    await show(annotate, JSON.stringify(report));
    expect(report.problems).toEqual([]);
  }, 300_000);

  test('a second instance on the same state folder exits 2 while the first works through 300 documents', async ({
    annotate,
  }) => {
    const report = await runLockedStateScenario({ documents: 300 });
    recordRun('locked state (torture)', report);
    await show(annotate, JSON.stringify(report));
    expect(report.problems).toEqual([]);
  }, 120_000);

  test('a wrong key pauses 400 documents; after SIGHUP they are all accepted without a burst above the rate', async ({
    annotate,
  }) => {
    const report = await runWrongKeyScenario({ documents: 400, requestsPerSecond: 25 });
    recordRun('wrong key (torture)', report);
    await show(annotate, JSON.stringify(report));
    expect(report.problems).toEqual([]);
  }, 120_000);
});
