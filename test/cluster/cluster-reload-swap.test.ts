/**
 * One node's reload swaps two companies' entries (ids, NITs, keys) while another node runs one of them:
 * the identity rule compares one alias at a time, so node `a` would renew its company under the id node
 * `b` sends the other alias under, and both aliases would issue under one company at once, each on its
 * own node (company 2001's invoices issued under 2002's NIT). The reload is refused naming the id, the
 * other alias and its node; a's company goes on under its own id. Real `edoc-bridge run` child processes
 * on one PostgreSQL ledger.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { clusterCompany, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const C1 = clusterCompany(1);
const C2 = clusterCompany(2);
const LEASE_MS = 1_500;

describePg('a reload on one node that swaps two companies another node runs', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [C1, C2], leaseMs: LEASE_MS });

  const owner = async (company: string): Promise<string | undefined> =>
    (
      await ctx.sql.get<{ owner: string | null }>(
        'SELECT owner FROM company_leases WHERE company = ? AND expires_at > now()',
        [company],
      )
    )?.owner ?? undefined;

  it("is refused while the other alias's node is live; each company's invoices stay its own", async () => {
    const a = await ctx.cluster.start('a');
    await ctx.cluster.start('b');
    const held = await eventually(async () => {
      const [o1, o2] = [await owner('c1'), await owner('c2')];
      if (o1 === 'a' && o2 === 'b') return { mine: C1, theirs: C2 };
      if (o1 === 'b' && o2 === 'a') return { mine: C2, theirs: C1 };
      return undefined;
    }, 'one company on each node');
    await eventually(
      async () =>
        (
          await ctx.sql.get<{ n: number }>(
            "SELECT count(*) AS n FROM company_leases WHERE identity_node = 'b'",
          )
        )?.n === 1
          ? true
          : undefined,
      "b to record its company's identity",
    );

    const node = await ctx.cluster.node('a');
    const config = parse(await readFile(node.configFile, 'utf8')) as {
      companies: Record<string, unknown>[];
    };
    const fields = ['id', 'nit', 'apiKey'] as const;
    const [x, y] = config.companies;
    for (const f of fields) [x[f], y[f]] = [y[f], x[f]];
    await writeFile(node.configFile, stringify(config));
    const outcome = await a.reload();
    expect(outcome.msg).toBe('new configuration refused; the old one stays in force');
    expect(JSON.stringify(outcome)).toContain(
      `${held.theirs.id} is company ${held.theirs.alias}'s id on node b (live)`,
    );

    const numbers = [991_700_000, 991_700_001, 991_700_002];
    await ctx.cluster.drop(
      'invoice',
      'mine.jsonl',
      jsonlText(numbers.map((n) => invoice(n, held.mine))),
      held.mine.alias,
    );
    const result = await ctx.cluster.finalResult('invoice', 'mine.jsonl', held.mine.alias);
    expect(result.counts).toMatchObject({ total: 3, accepted: 3 });
    expect(await ctx.emulator.client.issued({ company: held.mine.id })).toHaveLength(3);
    expect(await ctx.emulator.client.issued({ company: held.theirs.id })).toHaveLength(0);
  }, 120_000);
});
