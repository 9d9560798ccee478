/**
 * Short version of the cluster torture (the long one is test/torture/cluster.test.ts, `npm run torture`):
 * 3 nodes sharing one PostgreSQL ledger, 3 companies, 240 numbered invoices and 60 service-numbered
 * documents under faults, 5 SIGKILLs with restarts, one SIGSTOP past the lease, one cut database connection.
 */
import { beforeAll, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { describePg } from '../helpers/postgres.js';
import { recordRun } from '../helpers/torture-project.js';
import { runClusterScenario } from '../torture/scenarios/cluster.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describePg('cluster (short)', () => {
  test('3 nodes, 3 companies, 300 documents, 5 SIGKILLs, a SIGSTOP past the lease and a cut connection under faults: numbered issued exactly once, none twice, every file reported and archived once, nothing sending, no secret on disk, no company over its cap at the emulator', async ({
    annotate,
  }) => {
    const report = await runClusterScenario({
      nodes: 3,
      companies: 3,
      rates: [4, 6, 8],
      leaseMs: 2_000,
      numberedPerCompany: 80,
      invoiceFilesPerCompany: 2,
      serviceNumberedPerCompany: 20,
      serviceFilesPerCompany: 2,
      kills: 5,
      killEveryMs: { min: 800, spread: 1_200 },
      restartMs: { min: 0, spread: 800 },
      freezeLeases: 2.5,
      seed: 13_0013,
      latencyMs: 40,
      finishTimeoutMs: 60_000,
    });
    recordRun('cluster (short)', report);
    await annotate(`cluster (short): ${JSON.stringify(report)}`);
    expect(report.problems).toEqual([]);
    // each company's busiest sliding second at the emulator (its own count of arrivals) within its cap:
    // the rate's slots are dated by their answers, and a company taken over waits out its last owner's
    expect(report.rateProblems).toEqual([]);
    expect(report).toMatchObject({
      numbered: 240,
      serviceNumbered: 60,
      kills: 5,
      lost: 0,
      duplicated: 0,
      extra: 0,
      inDoubtNotOurs: 0,
      issuedTwice: 0,
      acceptedNotIssued: 0,
      files: 12,
      reportsComplete: 12,
      notSettled: 0,
      secondReports: 0,
      notArchivedOnce: 0,
      leftInInbox: 0,
      sendingLeft: 0,
      uncleanStops: 0,
      secretsFound: 0,
    });
    expect(report.frozen).toHaveProperty('takenOverMs', expect.any(Number));
    expect(report.cut).toHaveProperty('backends', expect.any(Number));
  }, 150_000);
});
