/**
 * Short version of the crash suite (the long one is test/torture/crash.test.ts,
 * `npm run torture`): ~200 numbered invoices over JSONL and CSV files under 500s,
 * 502s, resets and lost answers, SIGKILL 5 times with restarts.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { recordRun } from '../helpers/torture-project.js';
import { runCrashScenario } from '../torture/scenarios/crash.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('crash (short)', () => {
  test('200 invoices in 6 files, 5 SIGKILLs under faults: each issued exactly once, every file reported complete (accepted, or in doubt for a repeated number and held once with our content), nothing left sending, no key on disk', async ({
    annotate,
  }) => {
    const report = await runCrashScenario({
      documents: 200,
      files: 6,
      kills: 5,
      seed: 8_2026,
      requestsPerSecond: 40,
      killAfterMs: { min: 300, spread: 900 },
      finishTimeoutMs: 40_000,
    });
    recordRun('crash (short)', report);
    await annotate(`crash (short): ${JSON.stringify(report)}`);
    expect(report).toMatchObject({
      documents: 200,
      crashes: 5,
      lost: 0,
      duplicated: 0,
      extra: 0,
      reportsWritten: 6,
      reportsComplete: 6,
      notAccepted: 0,
      inDoubtNotOurs: 0,
      secretsFound: 0,
    });
    // a lost answer is never reported accepted on a repeated-number answer alone: those are in doubt, held once with our content
    expect(report.ledgerStates).toEqual(
      report.inDoubt === 0
        ? { accepted: 200 }
        : { accepted: 200 - report.inDoubt, 'in-doubt': report.inDoubt },
    );
    expect(report.inDoubt).toBeGreaterThan(0);
    expect(report.faultsInjected['drop-after-commit'] ?? 0).toBeGreaterThan(0);
    expect(report.faultsInjected.reset ?? 0).toBeGreaterThan(0);
  }, 120_000);
});
