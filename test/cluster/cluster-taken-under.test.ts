/**
 * A node takes a company whose open file was taken under another NIT than its own entry of the company
 * gives (its copy of the configuration edited: c2 with company 2003's id, NIT and key), after the node
 * that took the file died. The identity rule lets a node with another identity take a company whose
 * recorder is gone; the file's remaining documents still may not be issued under the other company: the
 * node refuses the company as a start would (its lease released, the error naming both NITs), nothing is
 * issued under 2003, and once its configuration agrees (reload) it takes c2 and ends the file under 2002.
 * The refusal is said once, and c2 is not claimed and released again at every heartbeat meanwhile.
 * Real `edoc-bridge run` child processes on one PostgreSQL ledger.
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

describePg('a company taken over with a file of it open under another NIT', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [C1, C2, OTHER], leaseMs: LEASE_MS });

  it('the node left, whose entry of c2 is company 2003, issues nothing of the file under 2003', async () => {
    const a = await ctx.cluster.start('a', 30_000, { companies: ['c1', 'c2'] });
    await eventually(
      async () => ((await leaseOwner(ctx.sql, 'c2')) === 'a' ? true : undefined),
      'a to own c2',
      20_000,
    );
    const b = await ctx.cluster.start('b', 30_000, {
      companies: ['c1', 'c2'],
      replace: { c2: { id: OTHER.id, nit: OTHER.nit, apiKey: OTHER.apiKey } },
    });
    const numbers = Array.from({ length: 12 }, (_, i) => 991_900_000 + i);
    const text = jsonlText(numbers.map((n) => invoice(n, C2)));
    await ctx.cluster.drop('invoice', 'twelve.jsonl', text, 'c2');
    await eventually(
      async () =>
        (await ctx.emulator.client.issued({ company: C2.id })).length >= 3 ? true : undefined,
      'the first invoices issued under c2',
      30_000,
    );
    await a.kill();
    const issuedBefore = (await ctx.emulator.client.issued({ company: C2.id })).length;
    expect(issuedBefore).toBeLessThan(12);

    // b refuses c2 once a is gone, naming the file and both NITs
    const refused = await b.waitForLog(
      (l) => l.company === 'c2' && l.msg.includes('could not be started here'),
      20_000,
    );
    expect(JSON.stringify(refused)).toContain(
      `company c2 has 1 open file(s) taken under NIT ${C2.nit} (twelve.jsonl), and this configuration gives it NIT ${OTHER.nit}`,
    );
    // 12 heartbeats (leaseMs / 3 each): one error line, and c2 claimed again only after a growing wait
    // (2, 4 then 8 heartbeats: at most 3 claims in all), not at each of them
    await new Promise((r) => setTimeout(r, 4 * LEASE_MS));
    const ofC2 = b.logLines().filter((l) => l.company === 'c2');
    expect(ofC2.filter((l) => l.msg.includes('could not be started here'))).toHaveLength(1);
    expect(ofC2.filter((l) => l.msg === 'cluster: company taken').length).toBeLessThanOrEqual(4);
    expect(await ctx.emulator.client.issued({ company: OTHER.id })).toHaveLength(0);
    expect(await ctx.emulator.client.issued({ company: C2.id })).toHaveLength(issuedBefore);

    // b's entry of c2 made right: it takes c2 and the file ends under 2002
    const bProject = await ctx.cluster.node('b');
    const config = parse(await readFile(bProject.configFile, 'utf8')) as {
      companies: Record<string, unknown>[];
    };
    config.companies = config.companies.map((c) =>
      c.alias === 'c2' ? { ...c, id: C2.id, nit: C2.nit, apiKey: C2.apiKey } : c,
    );
    await writeFile(bProject.configFile, stringify(config));
    expect((await b.reload()).msg).toBe('configuration reloaded');
    // its entry changed: claimed at the next beat, without waiting out the backoff
    await b.waitForLog((l) => l.company === 'c2' && l.msg.includes('no longer refused'), 10_000);
    const result = await ctx.cluster.finalResult('invoice', 'twelve.jsonl', 'c2', 60_000);
    // a document a's answer was lost for is resent by b, and the service's "already issued" makes it in doubt
    expect(result.counts.total).toBe(12);
    expect(result.counts.accepted + result.counts.inDoubt).toBe(12);
    expect(await ctx.emulator.client.issued({ company: C2.id })).toHaveLength(12);
    expect(await ctx.emulator.client.issued({ company: OTHER.id })).toHaveLength(0);
  }, 180_000);
});
