/**
 * An outsider's attack on one node serving several companies: the daemon stopped (SIGSTOP) mid-burst for
 * longer than `service.timeoutMs`, then continued. The service answered the calls in flight while the
 * daemon stood still; those answers are in its sockets when it runs again and must be read, not thrown
 * away as timeouts (each numbered document sent again is refused as a repeated number and left in doubt,
 * for the operator to resolve by hand, although it was accepted once and the daemon was told so).
 */
import { beforeAll, describe, expect } from 'vitest';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { buildCli, COMPANY_MAIN, COMPANY_OTHER, sleep } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const PER_COMPANY = 6;

describe('a daemon frozen mid-burst past the service timeout', () => {
  test('the answers that came while it was frozen are read: every document accepted once, none in doubt, no request sent twice', async ({
    daemonProject,
  }) => {
    const slow = { requestsPerSecond: 4, concurrency: 2 };
    const companies = [
      { ...COMPANY_MAIN, rate: slow },
      { ...COMPANY_OTHER, rate: slow },
    ];
    const { emulator, project, startDaemon } = await daemonProject({
      companies,
      faults: { latencyMs: 400 },
      // well above the emulator's 400 ms, so that on a loaded machine only the freeze outlasts it
      timeoutMs: 3_000,
    });
    const daemon = await startDaemon();
    for (const c of companies) {
      const docs = Array.from({ length: PER_COMPANY }, (_, i) => invoice(990_271_001 + i, c));
      await project.drop('invoice', 'burst.jsonl', jsonlText(docs), c.alias);
    }
    // freeze while the service is answering submissions, for 2.5 times the timeout
    const deadline = Date.now() + 20_000;
    while ((await emulator.client.submissionsInFlight()) === 0) {
      if (Date.now() > deadline) throw new Error('no submission went out');
      await sleep(20);
    }
    daemon.signal('SIGSTOP');
    try {
      await sleep(7_500);
    } finally {
      daemon.signal('SIGCONT');
    }

    for (const c of companies) {
      const result = await project.finalResult('invoice', 'burst.jsonl', { company: c.alias });
      expect(result.counts).toMatchObject({
        total: PER_COMPANY,
        accepted: PER_COMPANY,
        inDoubt: 0,
      });
      const issued = await emulator.client.issued({ company: c.id });
      expect(issued.map((d) => d.number).sort()).toEqual(
        Array.from({ length: PER_COMPANY }, (_, i) => String(990_271_001 + i)),
      );
    }
    // one E1 per document: none was sent again after the freeze
    const e1 = Object.values((await emulator.client.stats()).requests.E1 ?? {}).reduce(
      (a, b) => a + b,
      0,
    );
    expect(e1).toBe(2 * PER_COMPANY);
  }, 90_000);
});
