/**
 * A node whose own state folder (local disk) is full while the PostgreSQL ledger and the shared
 * outbox have room: the companies it holds go on being sent (seen: 10 invoices final 0.3 s after the
 * drop, no pause), not held under a lease by a node that pauses.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { expect, it } from 'vitest';
import { clusterCompany, leaseOwner, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually, sleep, type DaemonProcess } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';
import { mountSupport, SmallDisk } from '../helpers/small-disk.js';

// a real small disk needs a tmpfs mount (root): skipped where this process cannot mount one
const support = mountSupport();

const COMPANIES = [1, 2].map((i) => clusterCompany(i, { requestsPerSecond: 20, concurrency: 4 }));

describePg('a node whose state disk is full', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: COMPANIES, leaseMs: 1_500 });

  it.skipIf(!support.ok)(
    'its companies are still sent',
    async ({ annotate }) => {
      const a = await ctx.cluster.node('a');
      const disk = SmallDisk.mount(path.join(a.dir, 'disk'), 4);
      try {
        await mkdir(path.join(disk.dir, 'state'));
        const config = parse(await readFile(a.configFile, 'utf8')) as { paths: { state: string } };
        config.paths.state = path.join(disk.dir, 'state');
        await writeFile(a.configFile, stringify(config));
        const nodes = new Map<string, DaemonProcess>();
        for (const name of ['a', 'b']) nodes.set(name, await ctx.cluster.start(name));
        await eventually(
          async () =>
            (await leaseOwner(ctx.sql, 'c1')) !== undefined &&
            (await leaseOwner(ctx.sql, 'c2')) !== undefined &&
            (await leaseOwner(ctx.sql, 'c1')) !== (await leaseOwner(ctx.sql, 'c2'))
              ? true
              : undefined,
          'one each',
          30_000,
        );
        const held = (await leaseOwner(ctx.sql, 'c1')) === 'a' ? COMPANIES[0] : COMPANIES[1];
        disk.fill();
        await sleep(1_000);
        const numbers = Array.from({ length: 10 }, (_, i) => 990_960_001 + i);
        await ctx.cluster.drop(
          'invoice',
          'st.jsonl',
          jsonlText(numbers.map((n) => invoice(n, held))),
          held.alias,
        );
        const started = Date.now();
        const outcome = await ctx.cluster
          .finalResult('invoice', 'st.jsonl', held.alias, 40_000)
          .then((r) => `final after ${Date.now() - started} ms: ${JSON.stringify(r.counts)}`)
          .catch(() => 'no final report in 40 s');
        const lines = nodes
          .get('a')!
          .logLines()
          .filter((l) => l.level !== 'info' && l.level !== 30)
          .map((l) => `${String(l.code)} ${l.msg} ${String(l.where ?? '')}`);
        await annotate(
          `${held.alias} held by a; ${outcome}; owner now ${String(await leaseOwner(ctx.sql, held.alias))}; a: ${lines.slice(-4).join(' | ')}`,
        );
        expect(outcome).toMatch(/^final/);
      } finally {
        disk.free();
        disk.unmount();
      }
    },
    180_000,
  );
});
