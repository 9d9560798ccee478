/**
 * Issue 13 "Must show" 1, full size (`npm run torture`): 3 nodes sharing one PostgreSQL ledger and one
 * project folder, 6 companies with their own rate caps, 2,100 numbered invoices (JSONL and CSV) and 240
 * documents the service numbers (support documents and POS without a number); the emulator injecting 500s,
 * 502s, resets and accepted-then-dropped answers; 30 SIGKILLs of random nodes with restarts, one node frozen
 * with SIGSTOP past its lease, one node's database sessions ended while it sends. See scenarios/cluster.ts.
 */
import { beforeAll, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { describePg } from '../helpers/postgres.js';
import { recordRun } from '../helpers/torture-project.js';
import { runClusterScenario } from './scenarios/cluster.js';
import { show } from './show.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describePg('cluster (torture)', () => {
  test('3 nodes, 6 companies, 2,100 numbered + 240 service-numbered documents, 30 SIGKILLs, a SIGSTOP past the lease and a cut database connection under faults: every numbered document issued exactly once, no service-numbered one twice, every file reported and archived once, nothing sending, no company over its cap', async ({
    annotate,
  }) => {
    const report = await runClusterScenario(
      {
        nodes: 3,
        companies: 6,
        rates: [3, 4, 5, 6, 8, 10],
        leaseMs: 3_000,
        numberedPerCompany: 350,
        invoiceFilesPerCompany: 5,
        serviceNumberedPerCompany: 40,
        serviceFilesPerCompany: 4,
        kills: 30,
        killEveryMs: { min: 500, spread: 1_500 },
        restartMs: { min: 0, spread: 1_000 },
        freezeLeases: 2.5,
        seed: 13_2026,
        latencyMs: 50,
        finishTimeoutMs: 600_000,
      },
      (line) => {
        void annotate(line);
      },
    );
    recordRun('cluster (torture)', report);
    await show(annotate, `cluster (torture): ${JSON.stringify(report)}`);
    expect(report.problems).toEqual([]);
    expect(report.rateProblems).toEqual([]);
    expect(report).toMatchObject({
      numbered: 2_100,
      serviceNumbered: 240,
      kills: 30,
      lost: 0,
      duplicated: 0,
      extra: 0,
      inDoubtNotOurs: 0,
      issuedTwice: 0,
      acceptedNotIssued: 0,
      files: 54,
      reportsComplete: 54,
      notSettled: 0,
      secondReports: 0,
      notArchivedOnce: 0,
      leftInInbox: 0,
      sendingLeft: 0,
      overCap: 0,
      uncleanStops: 0,
      secretsFound: 0,
    });
    expect(report.frozen).toHaveProperty('takenOverMs', expect.any(Number));
    expect(report.cut).toHaveProperty('backends', expect.any(Number));
    expect(report.killsMidSend).toBeGreaterThanOrEqual(8);
  }, 1_500_000);
});
