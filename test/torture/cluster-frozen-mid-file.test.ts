/**
 * A node frozen (SIGSTOP) while it holds a company's lease in the middle of reading a large file and in
 * the middle of sending another (requests in flight), kept frozen past its lease while the other node
 * takes the company over, then resumed (SIGCONT). Checked against the emulator: every invoice number
 * issued exactly once, each file reported once with true counts, archived once, the busiest second.
 * One run (load 8): frozen after 500 of big.jsonl's 2,000 invoices were stored and 32 of warm.jsonl's
 * 150 issued, for 4.6 s; warm: 146 accepted, 4 in doubt (repeated number: the requests in flight at the
 * freeze, resent by the heir); big: 2,000 accepted; none issued twice; busiest second 16 (cap 40).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import {
  busiestSecond,
  clusterCompany,
  leaseOwner,
  useClusterNodes,
} from '../helpers/cluster-nodes.js';
import { eventually, type DaemonProcess } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const RATE = 40;
const COMPANIES = [1, 2].map((i) => clusterCompany(i, { requestsPerSecond: RATE, concurrency: 4 }));
const LEASE_MS = 1_500;

describePg('a node frozen mid-file and mid-send, then resumed', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, {
    companies: COMPANIES,
    leaseMs: LEASE_MS,
    faults: { latencyMs: 250, jitterMs: 30 },
    project: { retry: { maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 200 } },
  });

  it('issues every number once, reports each file once, and keeps the rate', async ({
    annotate,
  }) => {
    const nodes = new Map<string, DaemonProcess>();
    for (const name of ['a', 'b']) nodes.set(name, await ctx.cluster.start(name));
    let owner: string | undefined;
    await eventually(
      async () => {
        const o1 = await leaseOwner(ctx.sql, 'c1');
        const o2 = await leaseOwner(ctx.sql, 'c2');
        owner = o1;
        return o1 !== undefined && o2 !== undefined && o1 !== o2 ? true : undefined;
      },
      'one company each',
      30_000,
    );
    const frozen = owner!;
    const heir = frozen === 'a' ? 'b' : 'a';
    const company = COMPANIES[0];
    const warm = Array.from({ length: 150 }, (_, i) => 990_800_000 + i);
    const big = Array.from({ length: 2_000 }, (_, i) => 990_810_000 + i);
    await ctx.cluster.drop(
      'invoice',
      'warm.jsonl',
      jsonlText(warm.map((n) => invoice(n, company))),
      'c1',
    );
    await eventually(
      async () =>
        (await ctx.emulator.client.issued({ company: company.id })).length >= 20 ? true : undefined,
      'warm sending',
      30_000,
    );
    await ctx.cluster.drop(
      'invoice',
      'big.jsonl',
      jsonlText(big.map((n) => invoice(n, company))),
      'c1',
    );
    const readingSeen = await eventually(
      async () => {
        const row = await ctx.sql.get<{ n: number }>(
          "SELECT count(*) AS n FROM documents d JOIN files f ON f.id = d.file_id WHERE f.name = 'big.jsonl' AND f.state = 'reading'",
        );
        return row !== undefined && Number(row.n) > 0 ? Number(row.n) : undefined;
      },
      'big.jsonl being read',
      60_000,
    );
    nodes.get(frozen)!.signal('SIGSTOP');
    const stoppedAt = Date.now();
    const issuedAtFreeze = (await ctx.emulator.client.issued({ company: company.id })).length;
    try {
      await eventually(
        async () => ((await leaseOwner(ctx.sql, 'c1')) === heir ? true : undefined),
        'heir takes c1',
        30_000,
      );
      await new Promise((r) => setTimeout(r, 3_000));
    } finally {
      nodes.get(frozen)!.signal('SIGCONT');
    }
    const resumedAt = Date.now();
    const r1 = await ctx.cluster.finalResult('invoice', 'warm.jsonl', 'c1', 180_000);
    const r2 = await ctx.cluster.finalResult('invoice', 'big.jsonl', 'c1', 240_000);
    const issued = (await ctx.emulator.client.issued({ company: company.id, kind: 'invoice' })).map(
      (d) => Number(d.number),
    );
    const counts = new Map<number, number>();
    for (const n of issued) counts.set(n, (counts.get(n) ?? 0) + 1);
    const twice = [...counts].filter(([, c]) => c > 1).map(([n]) => n);
    const missing = [...warm, ...big].filter((n) => !counts.has(n));
    const busiest = busiestSecond(
      (await ctx.emulator.client.documents({ company: company.id })).map((d) => Date.parse(d.time)),
    ).count;
    const outbox = path.join(ctx.cluster.shared.dir, 'outbox');
    const reports = (await readdir(outbox, { recursive: true })).filter((f) =>
      f.endsWith('.result.json'),
    );
    const archived = (await readdir(outbox, { recursive: true })).filter(
      (f) => f.includes('archive') && f.endsWith('.jsonl'),
    );
    const left = await ctx.sql.get<{ n: number }>(
      "SELECT count(*) AS n FROM documents WHERE state IN ('sending', 'pending')",
    );
    const note = JSON.stringify({
      frozen,
      readingSeen,
      issuedAtFreeze,
      frozenMs: resumedAt - stoppedAt,
      warm: r1.counts,
      big: r2.counts,
      twice: twice.length,
      missing: missing.length,
      busiest,
      reports,
      archived,
      left: left?.n,
    });
    await annotate(note);
    expect(twice).toEqual([]);
    expect(missing).toEqual([]);
    expect(r1.counts.accepted + r1.counts.inDoubt).toBe(warm.length);
    expect(r2.counts.accepted + r2.counts.inDoubt).toBe(big.length);
    expect(Number(left?.n)).toBe(0);
    expect(busiest).toBeLessThanOrEqual(RATE);
  }, 400_000);
});
