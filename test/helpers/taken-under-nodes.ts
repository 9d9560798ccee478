/**
 * The take-over of cluster-taken-under*.test.ts: node a takes c2 and starts sending a file of it, node b
 * (whose entry of c2 is edited: `replace`) waits; a dies, and b must refuse c2 rather than issue the rest of
 * the file under another company. Then b's entry is made right by a reload, and the file ends under c2.
 * Real `edoc-bridge run` child processes on one PostgreSQL ledger.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import { clusterCompany, leaseOwner, type ClusterNodesContext } from './cluster-nodes.js';
import { type DaemonProcess, eventually, type LogLine } from './daemon-harness.js';
import { invoice, jsonlText } from './documents.js';

export const C1 = clusterCompany(1);
export const C2 = clusterCompany(2, { requestsPerSecond: 2, concurrency: 1 });
/** Company 2003, known to the emulator, configured on no node: what b's edited entry of c2 names. */
export const OTHER = clusterCompany(3, { requestsPerSecond: 2, concurrency: 1 });
export const LEASE_MS = 1_500;

/** Until b refuses c2 (a gone): b, its refusal line, and how many invoices a issued. */
export async function refusedTakeOver(
  ctx: ClusterNodesContext,
  replace: Record<string, unknown>,
): Promise<{ b: DaemonProcess; refused: LogLine; issuedBefore: number }> {
  const a = await ctx.cluster.start('a', 30_000, { companies: ['c1', 'c2'] });
  await eventually(
    async () => ((await leaseOwner(ctx.sql, 'c2')) === 'a' ? true : undefined),
    'a to own c2',
    20_000,
  );
  const b = await ctx.cluster.start('b', 30_000, {
    companies: ['c1', 'c2'],
    replace: { c2: replace },
  });
  const numbers = Array.from({ length: 12 }, (_, i) => 991_900_000 + i);
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
  return { b, refused, issuedBefore };
}

/** b's entry of c2 made right (a reload): b takes c2 and the file ends under 2002, nothing under 2003. */
export async function madeRight(ctx: ClusterNodesContext, b: DaemonProcess): Promise<void> {
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
}
