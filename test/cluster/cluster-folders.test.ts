/**
 * Two nodes that disagree on how many companies there are: node `b` lists only c1, so it watches c1's
 * files in `inbox/<kind>/`, while node `a` lists c1 and c2 and looks for c1's in `inbox/c1/<kind>/`. With
 * b holding c1, a file dropped where a's configuration says waited unseen by the holder and skipped by a,
 * with no line anywhere. The inbox folder is part of the company's identity: a does not take c1 while b
 * runs and says why (EDOC_CLUSTER_COMPANY_MISMATCH naming both folders, in the log and in `status`); once
 * b stops, a takes c1 and sends the waiting file, each invoice once. Real `edoc-bridge run` child
 * processes on one PostgreSQL ledger.
 */
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { clusterCompany, leaseOwner, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const C1 = clusterCompany(1);
const C2 = clusterCompany(2);
const LEASE_MS = 1_500;

describePg('nodes whose company lists give one company two inbox folders', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [C1, C2], leaseMs: LEASE_MS });

  const owner = (company: string): Promise<string | undefined> => leaseOwner(ctx.sql, company);

  it('a node that lists c1 alone holds it: the other does not take it while it runs and says why', async () => {
    const b = await ctx.cluster.start('b', 30_000, { companies: ['c1'] });
    await eventually(async () => ((await owner('c1')) === 'b' ? true : undefined), 'b to own c1');
    await ctx.cluster.start('a', 30_000, { companies: ['c1', 'c2'] });
    const a = await ctx.cluster.node('a');
    await eventually(async () => ((await owner('c2')) === 'a' ? true : undefined), 'a to own c2');
    const mismatch = await eventually(
      () => a.logLines().find((l) => l.code === 'EDOC_CLUSTER_COMPANY_MISMATCH'),
      'a to say why it does not take c1',
      20_000,
    );
    expect(mismatch).toMatchObject({ level: 'error', company: 'c1', recordedBy: 'b' });
    expect(mismatch.differs).toBe('inbox folder inbox/c1/<kind>/ here, inbox/<kind>/ recorded');
    const status = await runCli(a, ['status']);
    expect(status.stdout).toContain(
      'EDOC_CLUSTER_COMPANY_MISMATCH: node a does not take c1: inbox folder inbox/c1/<kind>/ here',
    );

    // the file dropped where a looks for c1's files waits; once b stops, a takes c1 and sends it
    const numbers = Array.from({ length: 5 }, (_, i) => 991_800_000 + i);
    await ctx.cluster.drop(
      'invoice',
      'five.jsonl',
      jsonlText(numbers.map((n) => invoice(n, C1))),
      'c1',
    );
    await b.stop();
    const result = await ctx.cluster.finalResult('invoice', 'five.jsonl', 'c1', 60_000);
    expect(result.counts).toMatchObject({ total: 5, accepted: 5 });
    expect(await ctx.emulator.client.issued({ company: C1.id })).toHaveLength(5);
  }, 120_000);
});
