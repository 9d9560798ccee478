/**
 * A lease that lapsed at the database while its node still held it — the renewals came late (a node
 * starved of CPU: seen in the cluster bench on this loaded machine with leaseMs 3,000) and no other node
 * took the company — makes the fence refuse the node's commits until its next renewal. The intake of a
 * file dropped in that window is refused (EDOC_CLUSTER_FENCED, "intake failed"), the next heartbeat renews
 * the same lease, and nothing takes the file again: it gets no report until a restart.
 *
 * That was a bug (found by the cluster torture's bench): now a fenced intake drops the company at once, the
 * next beat claims the lapsed lease again (a new epoch), and taking it runs its recovery and takes its inbox
 * files again.
 */
import { beforeAll, expect, test } from 'vitest';
import {
  ClusterNode,
  clusterCompanies,
  createClusterProject,
  LedgerReader,
} from '../helpers/cluster-project.js';
import { buildCli, eventually, startTestEmulator } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg } from '../helpers/postgres.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describePg('a lease that lapsed without a taker', () => {
  test('a file whose intake the fence refused is reported once the lease is renewed', async () => {
    const companies = clusterCompanies(1, [20], 4);
    const emulator = await startTestEmulator(companies, { latencyMs: 5 });
    // leaseMs 15,000: a heartbeat every 5 s, so the lapse below lasts until the next one
    const { project, db } = await createClusterProject(
      { baseUrl: emulator.url, companies },
      15_000,
    );
    const ledger = await LedgerReader.open(db);
    const node = new ClusterNode('node-a', project);
    try {
      await node.start();
      await eventually(
        async () => ((await ledger.owned()).get('node-a')?.length === 1 ? true : undefined),
        'node-a holding co1',
      );
      await ledger.query("UPDATE company_leases SET expires_at = now() - interval '1 second'");
      await project.drop(
        'invoice',
        'tarde.jsonl',
        jsonlText([invoice(990_000_001, companies[0])]),
        'co1',
      );
      // renewed at the next heartbeat (within 5 s); then the file should go
      await eventually(
        async () => ((await ledger.owned()).get('node-a')?.length === 1 ? true : undefined),
        'the lease renewed',
        15_000,
      );
      const result = await project.finalResult('invoice', 'tarde.jsonl', {
        company: 'co1',
        timeoutMs: 15_000,
      });
      expect(result.counts).toMatchObject({ total: 1, accepted: 1 });
    } finally {
      await node.stop();
      await ledger.close();
      await emulator.close();
      await project.remove();
      await db.drop();
    }
  }, 60_000);
});
