/**
 * A node frozen (SIGSTOP) while it sends a company at its full rate, past its lease; the other node
 * takes the company and sends at the full rate too; then the frozen one is resumed (SIGCONT) with its
 * queue of documents waiting for slots. The company's busiest second at the emulator stays within its
 * cap over the whole run, and every invoice is issued once.
 */
import { expect, it } from 'vitest';
import {
  busiestSecond,
  clusterCompany,
  leaseOwner,
  useClusterNodes,
} from '../helpers/cluster-nodes.js';
import { eventually, sleep, type DaemonProcess } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const CAP = 20;
const COMPANIES = [clusterCompany(1, { requestsPerSecond: CAP, concurrency: 4 })];

describePg('a node frozen while it sends at the full rate, then resumed', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, {
    companies: COMPANIES,
    leaseMs: 1_500,
    faults: { latencyMs: 20 },
  });

  it('the busiest second stays within the cap; every invoice once', async ({ annotate }) => {
    const nodes = new Map<string, DaemonProcess>();
    for (const name of ['a', 'b']) nodes.set(name, await ctx.cluster.start(name));
    const holder = await eventually(() => leaseOwner(ctx.sql, 'c1'), 'c1 held', 30_000);
    const heir = holder === 'a' ? 'b' : 'a';
    const company = COMPANIES[0];
    const numbers = Array.from({ length: 300 }, (_, i) => 990_950_001 + i);
    await ctx.cluster.drop(
      'invoice',
      'fz.jsonl',
      jsonlText(numbers.map((n) => invoice(n, company))),
      'c1',
    );
    await eventually(
      async () =>
        (await ctx.emulator.client.issued({ company: company.id })).length >= 40 ? true : undefined,
      'sending at the cap',
      30_000,
    );
    nodes.get(holder)!.signal('SIGSTOP');
    try {
      await eventually(
        async () => ((await leaseOwner(ctx.sql, 'c1')) === heir ? true : undefined),
        'heir takes c1',
        30_000,
      );
      await sleep(1_500);
    } finally {
      nodes.get(holder)!.signal('SIGCONT');
    }
    const result = await ctx.cluster.finalResult('invoice', 'fz.jsonl', 'c1', 120_000);
    const docs = await ctx.emulator.client.documents({ company: company.id });
    const { count: busiest, from: at } = busiestSecond(docs.map((d) => Date.parse(d.time)));
    const issued = docs.filter((d) => d.accepted).map((d) => Number(d.number));
    await annotate(
      `busiest second ${busiest} (cap ${CAP}) from ${new Date(at).toISOString()}; ${docs.length} arrivals; ` +
        `accepted ${result.counts.accepted}, in doubt ${result.counts.inDoubt}`,
    );
    expect(issued.sort()).toEqual(numbers);
    expect(result.counts.accepted + result.counts.inDoubt).toBe(numbers.length);
    expect(busiest).toBeLessThanOrEqual(CAP);
  }, 240_000);
});
