/**
 * A reload (SIGHUP) on the node that holds a company, in the middle of a file it sends at its full
 * rate, that lowers the company's rate (only on that node: the operator reloads one node at a time).
 * The lower cap holds at the emulator from one window after the reload; the other node, whose copy
 * still says the old rate, does not take the company while the holder runs; every invoice issued once.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parse, stringify } from 'yaml';
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

const COMPANIES = [clusterCompany(1, { requestsPerSecond: 30, concurrency: 4 })];

describePg('a reload that lowers a rate on the holding node, mid-file', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, {
    companies: COMPANIES,
    leaseMs: 1_500,
    faults: { latencyMs: 20 },
  });

  it('the new cap holds one window after the reload; the other node keeps out; each invoice once', async ({
    annotate,
  }) => {
    const nodes = new Map<string, DaemonProcess>();
    for (const name of ['a', 'b']) nodes.set(name, await ctx.cluster.start(name));
    const holder = await eventually(() => leaseOwner(ctx.sql, 'c1'), 'c1 held', 30_000);
    const other = holder === 'a' ? 'b' : 'a';
    const company = COMPANIES[0];
    const numbers = Array.from({ length: 240 }, (_, i) => 990_900_001 + i);
    await ctx.cluster.drop(
      'invoice',
      'rate.jsonl',
      jsonlText(numbers.map((n) => invoice(n, company))),
      'c1',
    );
    await eventually(
      async () =>
        (await ctx.emulator.client.issued({ company: company.id })).length >= 60 ? true : undefined,
      'sending at 30/s',
      30_000,
    );
    const project = await ctx.cluster.node(holder);
    const config = parse(await readFile(project.configFile, 'utf8')) as {
      companies: { alias: string; rate: { requestsPerSecond: number } }[];
    };
    config.companies[0].rate.requestsPerSecond = 5;
    await writeFile(project.configFile, stringify(config));
    nodes.get(holder)!.signal('SIGHUP');
    const reloaded = await nodes
      .get(holder)!
      .waitForLog((l) => l.msg === 'configuration reloaded', 30_000);
    const reloadedAt = Date.parse(String(reloaded.time));
    await sleep(6_000);
    const times = (await ctx.emulator.client.documents({ company: company.id }))
      .map((d) => Date.parse(d.time))
      .filter((t) => t >= reloadedAt + 1_000);
    const busiest = busiestSecond(times).count;
    const owner = await leaseOwner(ctx.sql, 'c1');
    const mismatch = (await ctx.cluster.node(other))
      .logLines()
      .filter((l) => l.code === 'EDOC_CLUSTER_COMPANY_MISMATCH').length;
    await annotate(
      `busiest second from 1 s after the reload: ${busiest} (cap 5, was 30); ${times.length} arrivals in it; owner ${String(owner)}; ${other}'s mismatch lines ${mismatch}`,
    );
    expect(owner).toBe(holder);
    expect(busiest).toBeLessThanOrEqual(5);
    expect(times.length).toBeGreaterThan(10);
    // the rest at 5/s, then: every number once
    const result = await ctx.cluster.finalResult('invoice', 'rate.jsonl', 'c1', 120_000);
    expect(result.counts.accepted).toBe(numbers.length);
    const issued = (await ctx.emulator.client.issued({ company: company.id })).map((d) =>
      Number(d.number),
    );
    expect(issued.sort()).toEqual(numbers);
  }, 240_000);
});
