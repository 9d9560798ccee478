/**
 * The cluster's fencing hook (port.ts LedgerFence): every transaction the running pipeline makes for a
 * company asks the fence, inside the transaction, and a refusal rolls the whole transaction back; the
 * operator's actions never ask it. Run on both backends with a fence that refuses chosen companies.
 */
import { expect, it } from 'vitest';
import { EdocError } from '../../src/errors.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import type { LedgerFence } from '../../src/ledger/port.js';
import { describeBackends } from './backends.js';
import { docs, fileInput } from './helpers.js';

/** A fence that refuses the companies in `refused`, and notes each check (company, and that it ran inside a transaction). */
function testFence(): LedgerFence & { refused: Set<string>; checks: string[] } {
  const refused = new Set<string>();
  const checks: string[] = [];
  return {
    refused,
    checks,
    async check(tx, company) {
      // the hook reads on the transaction it is given (the real one checks the lease row there)
      expect(await tx.get<{ one: number }>('SELECT 1 AS one')).toEqual({ one: 1 });
      checks.push(company);
      if (refused.has(company))
        throw new EdocError('EDOC_CLUSTER_FENCED', `this node no longer holds ${company}'s lease`, {
          company,
        });
    },
  };
}

const fenced = expect.objectContaining({ code: 'EDOC_CLUSTER_FENCED' }) as unknown;

async function withDocuments(
  ledger: Ledger,
  company: string,
  n = 2,
): Promise<{ fileId: number; ids: number[] }> {
  const { fileId } = await ledger.recordFile(
    fileInput({ company, sha256: `sha-${company}`, path: `/inbox/${company}.json` }),
  );
  await ledger.insertDocuments(
    fileId,
    docs(n, (i) => ({ number: `${company.toUpperCase()}${i}` })),
    1_000,
  );
  await ledger.finishReading(fileId, 1_000);
  return { fileId, ids: (await ledger.claimDue(company, 1_000, n)).map((d) => d.id) };
}

describeBackends('the fencing hook', ({ open }) => {
  it('a refused company commits nothing: intake, marks, verdicts, recovery, reports, cursors and received rows roll back', async () => {
    const fence = testFence();
    const ledger = await open({ fence });
    const a = await withDocuments(ledger, 'a');
    const b = await withDocuments(ledger, 'b');
    expect(new Set(fence.checks)).toEqual(new Set(['a', 'b']));
    await ledger.markSending([b.ids[0]], 1_100);

    fence.refused.add('b');
    await expect(
      ledger.recordFile(fileInput({ company: 'b', sha256: 'new', path: '/inbox/new.json' })),
    ).rejects.toEqual(fenced);
    expect(await ledger.openFiles('b')).toHaveLength(1);
    await expect(ledger.markSending([b.ids[1]], 1_200)).rejects.toEqual(fenced);
    await expect(ledger.recordOutcome(b.ids[0], { state: 'accepted' }, 1_300)).rejects.toEqual(
      fenced,
    );
    await expect(ledger.scheduleRetry(b.ids[0], 9_000, {}, 1_300)).rejects.toEqual(fenced);
    await expect(ledger.unmarkSending([b.ids[0]], 1_300)).rejects.toEqual(fenced);
    await expect(ledger.setInDoubt([b.ids[1]], 'x', 1_300)).rejects.toEqual(fenced);
    await expect(ledger.recoverSending(1_400, 'b')).rejects.toEqual(fenced);
    // a batch that touches a refused company rolls back whole, the other company's part included
    await expect(
      ledger.commitSubmissions([a.ids[0]], [{ id: b.ids[0], state: 'accepted' }], 1_500),
    ).rejects.toEqual(fenced);
    expect((await ledger.getDocument(a.ids[0]))?.state).toBe('pending');
    expect((await ledger.getDocument(b.ids[0]))?.state).toBe('sending');
    expect((await ledger.getDocument(b.ids[1]))?.state).toBe('pending');
    await expect(
      ledger.failRead(b.fileId, { code: 'EDOC_READ_CHANGED', message: 'x' }, 1_600),
    ).rejects.toEqual(fenced);
    await expect(ledger.markReported(b.fileId, 'final')).rejects.toEqual(fenced);
    await expect(ledger.markArchived(b.fileId, '/archive/b.json', 1_600)).rejects.toEqual(fenced);
    await expect(ledger.relocateReport(b.fileId, '/outbox/archive', 'b', 1_600)).rejects.toEqual(
      fenced,
    );
    await expect(ledger.setReadDetails(b.fileId, { format: 'json' })).rejects.toEqual(fenced);
    expect(await ledger.getFile(b.fileId)).toMatchObject({
      state: 'open',
      reportState: 'none',
      archivedPath: null,
      format: null,
    });
    await expect(ledger.setCursor('b', 'c1')).rejects.toEqual(fenced);
    await expect(ledger.recordPull('b', 1_700)).rejects.toEqual(fenced);
    await expect(
      ledger.recordReceived({ company: 'b', documentId: 'cufe', files: [], at: 1 }),
    ).rejects.toEqual(fenced);
    expect([await ledger.getCursor('b'), await ledger.seenReceived('b', 'cufe')]).toEqual([
      undefined,
      false,
    ]);

    // the other company goes on
    expect((await ledger.markSending([a.ids[0]], 1_800)).sending).toEqual([a.ids[0]]);
    expect(await ledger.recordOutcome(a.ids[0], { state: 'accepted' }, 1_900)).toBe(true);
    await ledger.close();
  });

  it('operator actions never ask the fence; one check per company per transaction', async () => {
    const fence = testFence();
    const ledger = await open({ fence });
    const b = await withDocuments(ledger, 'b', 3);
    await ledger.markSending(b.ids, 1_100);
    fence.checks.length = 0;
    await ledger.recordOutcomes(
      b.ids.map((id) => ({ id, state: 'in-doubt' as const })),
      1_200,
    );
    expect(fence.checks).toEqual(['b']);

    fence.refused.add('b');
    fence.checks.length = 0;
    expect(
      (await ledger.requeue({ ids: [b.ids[0]], includeInDoubt: true, now: 2_000 })).ids,
    ).toEqual([b.ids[0]]);
    expect((await ledger.confirmIssued([b.ids[1]], 'seen at the portal', 2_100)).ids).toEqual([
      b.ids[1],
    ]);
    expect((await ledger.recordClash([b.ids[2]], 'not ours', 2_200)).ids).toEqual([]);
    const { request } = await ledger.requestResend(b.fileId, 2_300);
    await ledger.cancelResend(request.id, 2_400);
    expect(fence.checks).toEqual([]);
    await ledger.close();
  });

  it('without a fence nothing is checked and everything commits', async () => {
    const ledger = await open();
    const b = await withDocuments(ledger, 'b');
    expect((await ledger.markSending(b.ids, 1_100)).sending).toEqual(b.ids);
    await ledger.close();
  });
});
