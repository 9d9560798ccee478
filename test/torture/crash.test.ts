/**
 * Issue 8 reliability suite 1, full size (`npm run torture`): 2,000 numbered
 * invoices over 20 files (JSONL and CSV), the emulator injecting 500s, 502s,
 * resets and accepted-then-dropped answers (seeded), SIGKILL at 50 seeded
 * random moments with restarts; then the faults stop and it finishes.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { recordRun } from '../helpers/torture-project.js';
import { runCrashScenario } from './scenarios/crash.js';
import { show } from './show.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('crash (torture)', () => {
  test('2,000 invoices in 20 files, 50 SIGKILLs under faults: each issued exactly once, every file reported complete (accepted, or in doubt for a repeated number and held once with our content), nothing left sending', async ({
    annotate,
  }) => {
    const report = await runCrashScenario(
      {
        documents: 2_000,
        files: 20,
        kills: 50,
        seed: 20_261_122,
        requestsPerSecond: 40,
        killAfterMs: { min: 200, spread: 1_300 },
        finishTimeoutMs: 300_000,
      },
      (line) => {
        void annotate(line);
      },
    );
    recordRun('crash (torture)', report);
    await show(annotate, `crash (torture): ${JSON.stringify(report)}`);
    expect(report).toMatchObject({
      documents: 2_000,
      crashes: 50,
      lost: 0,
      duplicated: 0,
      extra: 0,
      reportsWritten: 20,
      reportsComplete: 20,
      notAccepted: 0,
      inDoubtNotOurs: 0,
      secretsFound: 0,
    });
    // a lost answer is never reported accepted on a repeated-number answer alone: those are in doubt, held once with our content
    expect(report.ledgerStates).toEqual(
      report.inDoubt === 0
        ? { accepted: 2_000 }
        : { accepted: 2_000 - report.inDoubt, 'in-doubt': report.inDoubt },
    );
    expect(report.inDoubt).toBeGreaterThan(0);
    expect(report.crashesMidSend).toBeGreaterThanOrEqual(10);
  }, 1_200_000);
});
