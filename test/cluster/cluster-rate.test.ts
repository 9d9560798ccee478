/**
 * A company's rate across a change of hands: one company sending at its full rate is handed over by a
 * graceful stop, then taken over after a SIGKILL. The emulator's own statistic (the busiest sliding
 * second of arrivals, per company) must stay within the cap: every slot is dated by its request's answer,
 * and the new owner waits one window past its last owner's last possible request (company_leases.quiet_at,
 * logged as `lastStartMs`). Here the stop's own drain and report flush (~1 s) and the lease's expiry
 * already keep the owners apart, so this run does not depend on that wait (checked: it passes without
 * it); the wait is for hand-overs quicker than that, and CompanyRates.tookOver is tested on its own in
 * test/rate/company-rate.test.ts. Real `edoc-bridge run` child processes, one PostgreSQL ledger.
 */
import { expect, it } from 'vitest';
import { clusterCompany, useClusterNodes } from '../helpers/cluster-nodes.js';
import { eventually, type DaemonProcess } from '../helpers/daemon-harness.js';
import { invoice, jsonlText } from '../helpers/documents.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const RATE = 8;
const COMPANY = clusterCompany(7, { requestsPerSecond: RATE, concurrency: 4 });
const LEASE_MS = 1_500;
const DOCUMENTS = 160;

describePg(
  "a company's rate across a change of hands (child processes, one PostgreSQL ledger)",
  () => {
    const db = usePgDatabase();
    const ctx = useClusterNodes(db, {
      companies: [COMPANY],
      leaseMs: LEASE_MS,
      faults: { latencyMs: 20 },
    });

    const owner = async (): Promise<string | undefined> =>
      (
        await ctx.sql.get<{ owner: string | null }>(
          'SELECT owner FROM company_leases WHERE company = ? AND expires_at > now()',
          [COMPANY.alias],
        )
      )?.owner ?? undefined;
    const issuedCount = async (): Promise<number> =>
      (await ctx.emulator.client.issued({ company: COMPANY.id })).length;

    it('handed over at a stop, then taken over after a kill: never over the cap at the service, each invoice issued once', async () => {
      const procs = new Map<string, DaemonProcess>();
      procs.set('a', await ctx.cluster.start('a'));
      await eventually(
        async () => ((await owner()) === 'a' ? true : undefined),
        'a to own the company',
        20_000,
      );
      procs.set('b', await ctx.cluster.start('b'));
      const numbers = Array.from({ length: DOCUMENTS }, (_, i) => 991_700_000 + i);
      await ctx.emulator.client.resetStats();
      await ctx.cluster.drop(
        'invoice',
        'full-rate.jsonl',
        jsonlText(numbers.map((n) => invoice(n, COMPANY))),
        COMPANY.alias,
      );
      const sending = async (atLeast: number, what: string): Promise<void> => {
        await eventually(
          async () => ((await issuedCount()) >= atLeast ? true : undefined),
          what,
          60_000,
        );
      };

      // 1. the owner stops gracefully while sending at its full rate: the other node takes it at its next beat
      await sending(20, 'the first owner sending');
      // the lease in force: a renewal late on a loaded machine leaves it expired for a moment (no owner)
      const first = await eventually(owner, 'the first owner');
      const other = first === 'a' ? 'b' : 'a';
      expect(await procs.get(first)!.stop()).toMatchObject({ code: 0 });
      await eventually(
        async () => ((await owner()) === other ? true : undefined),
        `${other} to take the company over`,
        20_000,
      );

      // 2. the first node comes back; the owner is killed mid-send: the lease expires and the first takes it again
      procs.set(first, await ctx.cluster.start(first));
      await sending(60, 'the second owner sending');
      await procs.get(other)!.kill();
      await eventually(
        async () => ((await owner()) === first ? true : undefined),
        `${first} to take the company over after the kill`,
        20_000,
      );

      // 3. the killed node restarts while the company sends: one company, two nodes, so nobody hands anything back
      procs.set(other, await ctx.cluster.start(other));
      const result = await ctx.cluster.finalResult(
        'invoice',
        'full-rate.jsonl',
        COMPANY.alias,
        120_000,
      );
      // a document whose request may have reached the service before the kill and whose verdict was not committed
      // is resent by the next owner: its number already issued, it is in doubt (Regla 90: ours or a clash? the
      // operator checks). Those are the requests in flight (at most the concurrency) and the answered ones whose
      // verdict was waiting for its batch's commit (lazyCommitMs; a numbered document frees its slot at the
      // answer, so one more may be in flight meanwhile; a CI dry run met 5 at concurrency 4): all sent within the
      // last second before the kill, so at most the rate.
      expect(result.counts.total).toBe(DOCUMENTS);
      expect(result.counts.accepted + result.counts.inDoubt, JSON.stringify(result.counts)).toBe(
        DOCUMENTS,
      );
      expect(result.counts.inDoubt, JSON.stringify(result.counts)).toBeLessThanOrEqual(RATE);

      const issued = (await ctx.emulator.client.issued({ company: COMPANY.id }))
        .map((d) => Number(d.number))
        .sort((x, y) => x - y);
      expect(issued).toEqual(numbers);
      const stats = await ctx.emulator.client.stats();
      // the emulator's count of arrivals: never more than the company's rate in any sliding second
      expect(stats.busiestSecond[String(COMPANY.id)]).toBeLessThanOrEqual(RATE);
      // and it ran near its rate while one node held it (not trivially within the cap by sending slowly)
      expect(stats.busiestSecond[String(COMPANY.id)]).toBeGreaterThanOrEqual(RATE - 2);
      // two take-overs from a former owner, each told when that owner started its last request at the latest
      const takers: unknown[] = [];
      for (const name of procs.keys()) {
        takers.push(
          ...(await ctx.cluster.node(name))
            .logLines()
            .filter((l) => l.msg === 'cluster: company taken' && typeof l.lastStartMs === 'number'),
        );
      }
      expect(takers.length).toBeGreaterThanOrEqual(2);
    }, 240_000);
  },
);
