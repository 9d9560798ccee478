/**
 * Nodes whose clocks disagree: node `a`'s clock runs two hours ahead (its Date.now shifted by a preload in
 * the child process only). It reads a file and is stopped while the file's invoices still wait for their
 * turn; node `b` (a right clock) takes the company over and must send them at once: every time the nodes
 * compare (here a document's next attempt, written by `a`, compared by `b`) is the database's clock. `a`
 * says its clock is off. Real `edoc-bridge run` child processes on one PostgreSQL ledger.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { clusterCompany, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const COMPANY = clusterCompany(5, { requestsPerSecond: 4, concurrency: 2 });
const LEASE_MS = 1_500;
const AHEAD_MS = 2 * 3_600_000;

describePg('nodes whose clocks disagree (child processes, one PostgreSQL ledger)', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [COMPANY], leaseMs: LEASE_MS });

  const owner = async (): Promise<string | undefined> =>
    (
      await ctx.sql.get<{ owner: string | null }>(
        'SELECT owner FROM company_leases WHERE company = ? AND expires_at > now()',
        [COMPANY.alias],
      )
    )?.owner ?? undefined;

  it('a file read by a node two hours ahead is sent by the node that takes it over, at once', async () => {
    const skew = path.join(ctx.cluster.shared.dir, 'clock-ahead.mjs');
    await writeFile(skew, `const real = Date.now; Date.now = () => real() + ${AHEAD_MS};\n`);
    const a = await ctx.cluster.start('a', 30_000, { env: { NODE_OPTIONS: `--import=${skew}` } });
    await eventually(
      async () => ((await owner()) === 'a' ? true : undefined),
      'a to own the company',
      20_000,
    );
    const numbers = Array.from({ length: 60 }, (_, i) => 991_900_000 + i);
    await ctx.cluster.drop(
      'invoice',
      'ahead.jsonl',
      jsonlText(numbers.map((n) => invoice(n, COMPANY))),
      COMPANY.alias,
    );
    // 4/s: a has sent a few when it stops; the rest wait, due by the time a wrote
    await eventually(
      async () =>
        (await ctx.emulator.client.issued({ company: COMPANY.id })).length >= 4 ? true : undefined,
      'a sending',
      30_000,
    );
    await ctx.cluster.start('b');
    expect(await a.stop()).toMatchObject({ code: 0 });
    await eventually(
      async () => ((await owner()) === 'b' ? true : undefined),
      'b to take the company',
      20_000,
    );
    const takenAt = Date.now();
    // 60 at 4/s: 15 s at most from the take-over; on a clock two hours apart b would wait two hours
    const result = await ctx.cluster.finalResult('invoice', 'ahead.jsonl', COMPANY.alias, 45_000);
    expect(result.counts.accepted).toBe(60);
    expect(Date.now() - takenAt).toBeLessThan(45_000);
    const issued = await ctx.emulator.client.issued({ company: COMPANY.id });
    expect(issued).toHaveLength(60);

    const aLines = (await ctx.cluster.node('a'))
      .logLines()
      .filter((l) => l.code === 'EDOC_CLUSTER_CLOCK_SKEW');
    expect(aLines).toHaveLength(1);
    expect(aLines[0]).toMatchObject({ level: 'warn', node: 'a' });
    // two hours ahead: the database is 7,200 s behind a's clock (within a second of round trip)
    expect(Math.abs((aLines[0].offsetMs as number) + AHEAD_MS)).toBeLessThan(1_000);
    expect(
      (await ctx.cluster.node('b')).logLines().filter((l) => l.code === 'EDOC_CLUSTER_CLOCK_SKEW'),
    ).toHaveLength(0);
  }, 180_000);
});
