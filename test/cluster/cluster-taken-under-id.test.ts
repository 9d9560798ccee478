/**
 * As cluster-taken-under.test.ts, with only the company id of b's entry of c2 edited (company 2003's id
 * and key, c2's own NIT kept): the requests would name c2's NIT under company 2003. The documents carry the
 * NIT, not the id, so the ledger's record of the id c2's files are taken under (ledger/company-ids.ts) is
 * what refuses the take-over. Real `edoc-bridge run` child processes on one PostgreSQL ledger.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { clusterCompany, leaseOwner, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const C1 = clusterCompany(1);
const C2 = clusterCompany(2, { requestsPerSecond: 2, concurrency: 1 });
const OTHER = clusterCompany(3, { requestsPerSecond: 2, concurrency: 1 }); // company 2003, known to the emulator
const LEASE_MS = 1_500;

describePg('a company taken over with a file of it open under another company id', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [C1, C2, OTHER], leaseMs: LEASE_MS });

  it("the node left, whose entry of c2 has company 2003's id and c2's NIT, issues nothing of the file under 2003", async () => {
    const a = await ctx.cluster.start('a', 30_000, { companies: ['c1', 'c2'] });
    await eventually(
      async () => ((await leaseOwner(ctx.sql, 'c2')) === 'a' ? true : undefined),
      'a to own c2',
      20_000,
    );
    const b = await ctx.cluster.start('b', 30_000, {
      companies: ['c1', 'c2'],
      replace: { c2: { id: OTHER.id, apiKey: OTHER.apiKey } },
    });
    const numbers = Array.from({ length: 12 }, (_, i) => 992_900_000 + i);
    await ctx.cluster.drop(
      'invoice',
      'twelve.jsonl',
      jsonlText(numbers.map((n) => invoice(n, C2))),
      'c2',
    );
    await eventually(
      async () =>
        (await ctx.emulator.client.issued({ company: C2.id })).length >= 3 ? true : undefined,
      'the first invoices issued under c2',
      30_000,
    );
    await a.kill();
    const issuedBefore = (await ctx.emulator.client.issued({ company: C2.id })).length;
    expect(issuedBefore).toBeLessThan(12);

    const refused = await b.waitForLog(
      (l) => l.company === 'c2' && l.msg.includes('could not be started here'),
      20_000,
    );
    expect(JSON.stringify(refused)).toContain(
      `company c2 has 1 open file(s) taken under company id ${C2.id} (twelve.jsonl), and this configuration gives it id ${OTHER.id}`,
    );
    await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
    expect(await ctx.emulator.client.issued({ company: OTHER.id })).toHaveLength(0);
    expect(await ctx.emulator.client.issued({ company: C2.id })).toHaveLength(issuedBefore);

    // b's entry of c2 made right: it takes c2 and the file ends under 2002
    const bProject = await ctx.cluster.node('b');
    const config = parse(await readFile(bProject.configFile, 'utf8')) as {
      companies: Record<string, unknown>[];
    };
    config.companies = config.companies.map((c) =>
      c.alias === 'c2' ? { ...c, id: C2.id, apiKey: C2.apiKey } : c,
    );
    await writeFile(bProject.configFile, stringify(config));
    expect((await b.reload()).msg).toBe('configuration reloaded');
    const result = await ctx.cluster.finalResult('invoice', 'twelve.jsonl', 'c2', 60_000);
    expect(result.counts.total).toBe(12);
    expect(result.counts.accepted + result.counts.inDoubt).toBe(12);
    expect(await ctx.emulator.client.issued({ company: C2.id })).toHaveLength(12);
    expect(await ctx.emulator.client.issued({ company: OTHER.id })).toHaveLength(0);
  }, 180_000);
});
