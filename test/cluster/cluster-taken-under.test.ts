/**
 * A node takes a company whose open file was taken under another NIT than its own entry of the company
 * gives (its copy of the configuration edited: c2 with company 2003's id, NIT and key), after the node
 * that took the file died. The identity rule lets a node with another identity take a company whose
 * recorder is gone; the file's remaining documents still may not be issued under the other company: the
 * node refuses the company as a start would (its lease released, the error naming both NITs), nothing is
 * issued under 2003, and once its configuration agrees (reload) it takes c2 and ends the file under 2002.
 * The refusal is said once, and c2 is not claimed and released again at every heartbeat meanwhile.
 * The same with only the company id of b's entry edited (c2's NIT kept): the documents carry the NIT, not
 * the id, so the ledger's record of the id c2's files are taken under (ledger/company-ids.ts) refuses it.
 */
import { expect, it } from 'vitest';
import { useClusterNodes } from '../helpers/cluster-nodes.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';
import {
  C1,
  C2,
  LEASE_MS,
  madeRight,
  OTHER,
  refusedTakeOver,
} from '../helpers/taken-under-nodes.js';

describePg('a company taken over with a file of it open under another NIT', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [C1, C2, OTHER], leaseMs: LEASE_MS });

  it('the node left, whose entry of c2 is company 2003, issues nothing of the file under 2003', async () => {
    const { b, refused, issuedBefore } = await refusedTakeOver(ctx, {
      id: OTHER.id,
      nit: OTHER.nit,
      apiKey: OTHER.apiKey,
    });
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

    await madeRight(ctx, b);
  }, 180_000);
});

describePg('a company taken over with a file of it open under another company id', () => {
  const db = usePgDatabase();
  const ctx = useClusterNodes(db, { companies: [C1, C2, OTHER], leaseMs: LEASE_MS });

  it("the node left, whose entry of c2 has company 2003's id and c2's NIT, issues nothing of the file under 2003", async () => {
    const { b, refused, issuedBefore } = await refusedTakeOver(ctx, {
      id: OTHER.id,
      apiKey: OTHER.apiKey,
    });
    expect(JSON.stringify(refused)).toContain(
      `company c2 has 1 open file(s) taken under company id ${C2.id} (twelve.jsonl), and this configuration gives it id ${OTHER.id}`,
    );
    await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
    expect(await ctx.emulator.client.issued({ company: OTHER.id })).toHaveLength(0);
    expect(await ctx.emulator.client.issued({ company: C2.id })).toHaveLength(issuedBefore);

    await madeRight(ctx, b);
  }, 180_000);
});
