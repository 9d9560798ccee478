/**
 * Cluster nodes as real `edoc-bridge run` child processes sharing one PostgreSQL ledger and one project
 * folder, against the emulator over real HTTP: the companies spread over the nodes, every file taken,
 * sent, reported and archived once although every node sees every drop; a graceful stop hands the
 * companies over at once; `status` lists the nodes and their leases.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { ClusterProject, clusterCompany, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually, type DaemonProcess } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { createDatabase, describePg, usePgDatabase } from '../helpers/postgres.js';

const COMPANIES = [1, 2, 3, 4].map((i) => clusterCompany(i));
const LEASE_MS = 1_500;

describePg('cluster nodes (child processes, one PostgreSQL ledger)', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, {
    companies: COMPANIES,
    leaseMs: LEASE_MS,
    faults: { latencyMs: 5 },
  });
  const nodes: DaemonProcess[] = [];

  const owners = async (): Promise<Record<string, string | null>> =>
    Object.fromEntries(
      (
        await ctx.sql.all<{ company: string; owner: string | null }>(
          'SELECT company, owner FROM company_leases WHERE expires_at > now() ORDER BY company',
        )
      ).map((r) => [r.company, r.owner]),
    );

  let number = 990_100_000;
  const dropInvoices = async (company: string, name: string, count: number): Promise<number[]> => {
    const c = COMPANIES.find((x) => x.alias === company)!;
    const numbers = Array.from({ length: count }, () => ++number);
    await ctx.cluster.drop('invoice', name, jsonlText(numbers.map((n) => invoice(n, c))), company);
    return numbers;
  };

  it('two nodes share four companies two and two, and every dropped file is sent, reported and archived once', async () => {
    nodes.push(await ctx.cluster.start('a'), await ctx.cluster.start('b'));
    await eventually(
      async () => {
        const held = Object.values(await owners());
        return held.length === 4 &&
          held.filter((o) => o === 'a').length === 2 &&
          held.filter((o) => o === 'b').length === 2
          ? true
          : undefined;
      },
      'an even spread of the leases',
      20_000,
    );

    const sent = new Map<string, number[]>();
    for (const company of COMPANIES)
      sent.set(
        company.alias,
        await dropInvoices(company.alias, `batch-${company.alias}.jsonl`, 20),
      );
    for (const company of COMPANIES) {
      const result = await ctx.cluster.finalResult(
        'invoice',
        `batch-${company.alias}.jsonl`,
        company.alias,
      );
      expect(result.counts).toMatchObject({ total: 20, accepted: 20 });
    }
    // exactly once at the authority, whichever node sent it
    for (const company of COMPANIES) {
      const issued = await ctx.emulator.client.issued({ company: company.id });
      expect(issued.map((d) => Number(d.number)).sort()).toEqual(sent.get(company.alias));
    }
    // one claim per file, by the node that owned the company, with its file row
    const claims = await ctx.sql.all<{
      path: string;
      company: string;
      node: string;
      file_id: number | null;
    }>('SELECT path, company, node, file_id FROM file_claims ORDER BY path');
    expect(claims.map((c) => c.path)).toEqual(
      COMPANIES.map((c) => `${c.alias}/invoice/batch-${c.alias}.jsonl`),
    );
    expect(claims.every((c) => c.file_id !== null)).toBe(true);
    const files = await ctx.sql.all<{ n: number }>('SELECT count(*) AS n FROM files');
    expect(files[0].n).toBe(4);
    // archived once: the inbox is empty, one copy in each archive
    for (const company of COMPANIES) {
      const inbox = path.join(ctx.cluster.shared.dir, 'inbox', company.alias, 'invoice');
      await eventually(
        async () =>
          (await readdir(inbox)).filter((n) => !n.startsWith('.')).filter((n) => n !== 'archive')
            .length === 0
            ? true
            : undefined,
        `the ${company.alias} inbox to be archived`,
      );
    }
    expect(
      existsSync(
        path.join(ctx.cluster.shared.dir, 'outbox', 'c1', 'invoice', 'batch-c1.result.json'),
      ),
    ).toBe(true);
  }, 120_000);

  it('status on a database no node has started on yet says so instead of failing', async () => {
    const fresh = await createDatabase();
    try {
      const other = await ClusterProject.create({
        baseUrl: ctx.emulator.url,
        companies: COMPANIES,
        url: fresh.url,
        leaseMs: LEASE_MS,
      });
      const run = await runCli(await other.node('x'), ['status']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/Cluster: 0 live node\(s\) of 0 known/);
      await other.remove();
    } finally {
      await fresh.drop();
    }
  }, 60_000);

  it('status lists both nodes, live, with their companies', async () => {
    const node = await ctx.cluster.node('a');
    const run = await runCli(node, ['status']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Cluster: 2 live node\(s\) of 2 known/);
    expect(run.stdout).toMatch(/\ba\b.*live/);
    expect(run.stdout).toMatch(/\bb\b.*live/);
    const json = await runCli(node, ['status', '--json']);
    const status = JSON.parse(json.stdout) as {
      cluster: { nodes: { name: string; live: boolean }[]; leases: { owner: string }[] };
    };
    expect(status.cluster.nodes.map((n) => [n.name, n.live])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(status.cluster.leases).toHaveLength(4);
  }, 60_000);

  it('a graceful stop hands its companies to the other node at once, which sends what is dropped next', async () => {
    const [a, b] = nodes;
    const ofB = Object.entries(await owners())
      .filter(([, o]) => o === 'b')
      .map(([c]) => c);
    const stopped = Date.now();
    expect(await b.stop()).toMatchObject({ code: 0 });
    // b's released leases are out of `owners()` (expired now, no owner) until a takes them: count them in
    await eventually(
      async () => {
        const held = Object.values(await owners());
        return held.length === COMPANIES.length && held.every((o) => o === 'a') ? true : undefined;
      },
      'a to hold every company',
      10_000,
    );
    // released at stop, taken at a's next beat: well within one lease
    expect(Date.now() - stopped).toBeLessThan(LEASE_MS * 4);
    const numbers = await dropInvoices(ofB[0], 'after-stop.jsonl', 5);
    const result = await ctx.cluster.finalResult('invoice', 'after-stop.jsonl', ofB[0]);
    expect(result.counts).toMatchObject({ total: 5, accepted: 5 });
    const c = COMPANIES.find((x) => x.alias === ofB[0])!;
    const issued = (await ctx.emulator.client.issued({ company: c.id })).map((d) =>
      Number(d.number),
    );
    for (const n of numbers) expect(issued.filter((x) => x === n)).toHaveLength(1);
    expect(a.running).toBe(true);
    const bLog = (await ctx.cluster.node('b')).logLines();
    expect(bLog.some((l) => l.msg === 'cluster: node left, leases released')).toBe(true);
  }, 90_000);

  it('nodes joining while every company sends take their share gracefully: each invoice issued once, each file reported once', async () => {
    const sent = new Map<string, number[]>();
    for (const company of COMPANIES)
      sent.set(company.alias, await dropInvoices(company.alias, `join-${company.alias}.jsonl`, 60));
    await eventually(
      async () =>
        (await ctx.emulator.client.issued({ company: COMPANIES[0].id })).length > 0
          ? true
          : undefined,
      'sending',
    );
    nodes.push(await ctx.cluster.start('c'), await ctx.cluster.start('d'));
    for (const company of COMPANIES) {
      const result = await ctx.cluster.finalResult(
        'invoice',
        `join-${company.alias}.jsonl`,
        company.alias,
      );
      expect(result.counts).toMatchObject({ total: 60, accepted: 60 });
      const issued = (await ctx.emulator.client.issued({ company: company.id })).map((d) =>
        Number(d.number),
      );
      for (const n of sent.get(company.alias)!)
        expect(
          issued.filter((x) => x === n),
          `${company.alias} ${n}`,
        ).toHaveLength(1);
    }
    // three live nodes, four companies: at most two each, every company owned
    await eventually(
      async () => {
        const held = Object.values(await owners());
        const per = new Map<string, number>();
        for (const o of held) if (o !== null) per.set(o, (per.get(o) ?? 0) + 1);
        return held.length === 4 && [...per.values()].every((n) => n <= 2) ? true : undefined;
      },
      'a fair spread over three nodes',
      20_000,
    );
    const handedOver = (await ctx.cluster.node('a'))
      .logLines()
      .filter((l) => l.msg === 'cluster: handing the company over (fair share)');
    expect(handedOver.length).toBeGreaterThan(0);
    const files = await ctx.sql.all<{ n: number }>(
      "SELECT count(*) AS n FROM files WHERE name LIKE 'join-%'",
    );
    expect(files[0].n).toBe(4);
  }, 120_000);
});
