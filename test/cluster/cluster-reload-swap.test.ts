/**
 * One node's reload swaps two companies' entries (ids, NITs, keys) while another node runs one of them:
 * the identity rule compares one alias at a time, so node `a` would renew its company under the id node
 * `b` sends the other alias under, and both aliases would issue under one company at once, each on its
 * own node (company 2001's invoices issued under 2002's NIT). The reload is refused naming the id, the
 * other alias and its node; a's company goes on under its own id. The same swap made by restarting `a`
 * at once under its name (it takes its own leases back) is not claimed either: a says which alias runs
 * under that id (the company waits, with that error line, while a runs: b is at its fair share), and
 * once a is stopped b takes it under its own id. A row no node holds any more (the company dropped from
 * b's configuration) does not count: a started with it renamed c3 runs c3 under that id. Real `edoc-bridge run` child processes on one
 * PostgreSQL ledger.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { clusterCompany, leaseOwner, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const C1 = clusterCompany(1);
const C2 = clusterCompany(2);
const LEASE_MS = 6_000; // a killed node started again comes back within its lease (it takes its own leases back)

/** Swaps the id, NIT and key of the two companies in the node's configuration file. */
async function swapCompanies(file: string): Promise<void> {
  const config = parse(await readFile(file, 'utf8')) as { companies: Record<string, unknown>[] };
  const [x, y] = config.companies;
  for (const f of ['id', 'nit', 'apiKey']) [x[f], y[f]] = [y[f], x[f]];
  await writeFile(file, stringify(config));
}

describePg('a reload on one node that swaps two companies another node runs', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [C1, C2], leaseMs: LEASE_MS });

  const owner = (company: string): Promise<string | undefined> => leaseOwner(ctx.sql, company);

  it("is refused while the other alias's node is live, and not taken after a restart; each company's invoices stay its own", async () => {
    const a = await ctx.cluster.start('a');
    const b = await ctx.cluster.start('b');
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

    await swapCompanies((await ctx.cluster.node('a')).configFile);
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

    // killed, and started again at once under its name with the swapped file in place
    await a.kill();
    const again = await ctx.cluster.start('a');
    const line = await again.waitForLog(
      (l) => l.code === 'EDOC_CLUSTER_COMPANY_MISMATCH' && l.company === held.mine.alias,
      20_000,
    );
    expect(line).toMatchObject({ company: held.mine.alias, recordedBy: 'b' });
    expect(line.differs).toBe(`id ${held.theirs.id} here is company ${held.theirs.alias}'s id`);
    // nobody runs it while a disagrees (b is at its fair share): the operator stops a; b takes it
    const more = [991_700_010, 991_700_011];
    await ctx.cluster.drop(
      'invoice',
      'more.jsonl',
      jsonlText(more.map((n) => invoice(n, held.mine))),
      held.mine.alias,
    );
    const taken = again.logLines().filter((l) => l.msg === 'cluster: company taken');
    await again.stop();
    await eventually(
      async () => ((await owner(held.mine.alias)) === 'b' ? true : undefined),
      `b to take ${held.mine.alias}`,
      20_000,
    );
    const second = await ctx.cluster.finalResult('invoice', 'more.jsonl', held.mine.alias);
    expect(second.counts).toMatchObject({ total: 2, accepted: 2 });
    expect(await ctx.emulator.client.issued({ company: held.mine.id })).toHaveLength(5);
    expect(await ctx.emulator.client.issued({ company: held.theirs.id })).toHaveLength(0);
    expect(taken.filter((l) => l.company === held.mine.alias)).toHaveLength(0);

    // b drops theirs from its configuration (handed back, its row keeps b's record); a starts with it renamed
    // c3: a row no node holds does not count, so a runs c3 under that id
    const bNode = await ctx.cluster.node('b');
    const bConfig = parse(await readFile(bNode.configFile, 'utf8')) as {
      companies: { alias: string }[];
    };
    bConfig.companies = bConfig.companies.filter((c) => c.alias !== held.theirs.alias);
    await writeFile(bNode.configFile, stringify(bConfig));
    expect((await b.reload()).msg).toBe('configuration reloaded');
    await eventually(
      async () => ((await owner(held.theirs.alias)) === undefined ? true : undefined),
      `b to hand ${held.theirs.alias} back`,
      20_000,
    );
    const aNode = await ctx.cluster.node('a');
    const aConfig = parse(await readFile(aNode.configFile, 'utf8')) as {
      companies: Record<string, unknown>[];
    };
    aConfig.companies = [
      { ...aConfig.companies.find((c) => c.id === held.mine.id), alias: held.mine.alias },
      { ...aConfig.companies.find((c) => c.id === held.theirs.id), alias: 'c3' },
    ];
    await writeFile(aNode.configFile, stringify(aConfig));
    await ctx.cluster.start('a');
    await eventually(
      async () => ((await owner('c3')) === 'a' ? true : undefined),
      'a to take c3',
      20_000,
    );
  }, 120_000);
});
