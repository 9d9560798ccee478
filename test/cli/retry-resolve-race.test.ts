/**
 * `edoc-bridge retry --in-doubt` and `resolve --issued` given at the same moment on one document: on the
 * PostgreSQL ledger (READ COMMITTED) retry reads the document in doubt, the resolve commits, and retry's
 * update then changes nothing. The resolve's word stands, and retry must say so instead of "re-queued 1
 * document… will be sent again" with exit 0. The real CLI as a child process; the resolve's transaction is
 * held open on a second connection (the same UPDATE `confirmIssued` runs) so the two cross deterministically.
 */
import pg from 'pg';
import { beforeAll, expect } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli-runner.js';
import { buildCli, COMPANY_MAIN, eventually } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { jsonText, supportDocument } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

describePg('retry and resolve at the same moment', () => {
  const db = usePgDatabase();

  test('retry --in-doubt that loses to resolve --issued re-queues nothing, says resolve won and exits 1', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject({
      companies: [COMPANY_MAIN],
      ledger: { url: db().url },
      faults: { dropAfterCommitRate: 1 },
      retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
    });
    const daemon = await startDaemon(60_000);
    await p.drop('support-document', 'compras.json', jsonText([supportDocument(undefined, 'uno')]));
    const first = await p.finalResult('support-document', 'compras.json', { timeoutMs: 30_000 });
    expect(first.counts).toMatchObject({ total: 1, inDoubt: 1 });
    expect((await daemon.stop()).code).toBe(0);

    const resolver = new pg.Client({ connectionString: db().url });
    await resolver.connect();
    try {
      await resolver.query('BEGIN');
      const held =
        await resolver.query(`UPDATE documents SET state = 'accepted', doubt = NULL, errors = NULL,
        warnings = '["confirmed issued by the operator"]' WHERE state = 'in-doubt' RETURNING id`);
      expect(held.rowCount).toBe(1);
      const retry = spawnCli(p, ['retry', '--document', 'compras.json#0', '--in-doubt']);
      // retry has read the document in doubt and waits for the row the resolve holds
      // (pg_stat_activity is read once per transaction: cleared for each look)
      await eventually(
        async () =>
          (await resolver.query(`SELECT pg_stat_clear_snapshot()`)) &&
          (
            await resolver.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
        AND wait_event_type = 'Lock'`)
          ).rowCount === 1
            ? true
            : undefined,
        "retry waiting for the resolve's row lock",
        30_000,
      );
      await resolver.query('COMMIT');
      const run = await retry.done;
      expect(run.stdout).not.toContain('re-queued');
      expect(run.stderr).not.toContain('will be sent again');
      expect(run.stderr).toContain(
        'compras.json#0 was not re-queued: resolve --issued settled it at the same moment (it is accepted now)',
      );
      expect(run.code).toBe(1);
    } finally {
      await resolver.end();
    }
    const status = await runCli(p, ['status', '--json']);
    const json = JSON.parse(status.stdout) as {
      byCompanyKind: { counts: Record<string, number> }[];
    };
    expect(json.byCompanyKind[0].counts).toMatchObject({ accepted: 1, pending: 0, 'in-doubt': 0 });
  }, 120_000);
});
