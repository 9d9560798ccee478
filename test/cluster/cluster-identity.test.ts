/**
 * Two nodes whose configurations disagree on a company (an edited copy of the file): node `a` has c2 as
 * company 2002, node `b` has the alias c2 with the id, NIT and key of company 2003 and another rate. The
 * identity `a` recorded with c2's lease wins while `a` is live: `b` does not take c2 when `a` hands it back
 * for the fair share (one error line naming the fields, never the key), `a` takes it back, every invoice
 * of the file is issued under 2002, and `status` shows the disagreement. Real `edoc-bridge run` child
 * processes on one PostgreSQL ledger.
 */
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { clusterCompany, leaseOwner, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const C1 = clusterCompany(1);
const C2 = clusterCompany(2, { requestsPerSecond: 20, concurrency: 4 });
const OTHER = clusterCompany(3, { requestsPerSecond: 2, concurrency: 4 }); // company 2003, known to the emulator
const LEASE_MS = 1_500;

describePg('nodes that disagree on a company (child processes, one PostgreSQL ledger)', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [C1, C2, OTHER], leaseMs: LEASE_MS });

  const owner = (company: string): Promise<string | undefined> => leaseOwner(ctx.sql, company);

  it('a node whose copy of the configuration gives c2 another id, NIT, key and rate does not take c2 while the node that recorded it runs', async () => {
    await ctx.cluster.start('a', 30_000, { companies: ['c1', 'c2'] });
    await eventually(
      async () => ((await owner('c1')) === 'a' && (await owner('c2')) === 'a' ? true : undefined),
      'a to own c1 and c2',
      20_000,
    );
    await ctx.cluster.start('b', 30_000, {
      companies: ['c1', 'c2'],
      replace: { c2: { id: OTHER.id, nit: OTHER.nit, apiKey: OTHER.apiKey, rate: OTHER.rate } },
    });
    const b = await ctx.cluster.node('b');
    const a = await ctx.cluster.node('a');
    // a hands c2 back for the fair share (two companies, two nodes); b refuses it; a takes it back (a company
    // no other node takes is never left without an owner)
    await eventually(
      () =>
        a.logLines().some((l) => l.msg === 'cluster: handing the company over (fair share)')
          ? true
          : undefined,
      'a to hand a company back',
      20_000,
    );
    await eventually(
      () =>
        b.logLines().some((l) => l.code === 'EDOC_CLUSTER_COMPANY_MISMATCH') ? true : undefined,
      'b to refuse c2',
      20_000,
    );
    const numbers = Array.from({ length: 60 }, (_, i) => 991_800_000 + i);
    await ctx.cluster.drop(
      'invoice',
      'sixty.jsonl',
      jsonlText(numbers.map((n) => invoice(n, C2))),
      'c2',
    );
    const result = await ctx.cluster.finalResult('invoice', 'sixty.jsonl', 'c2', 90_000);
    expect(result.counts.accepted).toBe(60);
    expect(await ctx.emulator.client.issued({ company: OTHER.id })).toHaveLength(0);
    expect(await ctx.emulator.client.issued({ company: C2.id })).toHaveLength(60);
    expect(
      b.logLines().filter((l) => l.msg.includes('company taken') && l.company === 'c2'),
    ).toHaveLength(0);

    // one error line, naming the fields (values that are no secret), never the key
    const lines = b.logLines().filter((l) => l.code === 'EDOC_CLUSTER_COMPANY_MISMATCH');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', company: 'c2', recordedBy: 'a' });
    expect(lines[0].differs).toBe(
      `id ${OTHER.id} here, ${C2.id} recorded; nit ${OTHER.nit} here, ${C2.nit} recorded; apiKey; ` +
        'rate.requestsPerSecond 2 here, 20 recorded',
    );
    const logText = JSON.stringify(b.logLines()) + JSON.stringify(a.logLines());
    expect(logText).not.toContain(OTHER.apiKey);
    expect(logText).not.toContain(C2.apiKey);
    // the fingerprint in the database is not the key
    const recorded = await ctx.sql.get<{ identity: string }>(
      'SELECT identity FROM company_leases WHERE company = ?',
      ['c2'],
    );
    expect(recorded?.identity).not.toContain(C2.apiKey);
    expect(JSON.parse(recorded?.identity ?? '{}')).toMatchObject({
      id: C2.id,
      nit: C2.nit,
      requestsPerSecond: 20,
    });

    const status = await runCli(b, ['status']);
    expect(status.stdout).toContain(
      'EDOC_CLUSTER_COMPANY_MISMATCH: node b does not take c2: id 2003 here, 2002 recorded',
    );
    expect(status.stdout).not.toContain(OTHER.apiKey);
  }, 180_000);
});
