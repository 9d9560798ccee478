/**
 * The ledger port's atomicity rule (src/ledger/port.ts): once calls are awaited, other work runs
 * between two of them, so a method that writes on the strength of a condition checks it itself.
 */
import { describe, expect, it } from 'vitest';
import { CommitBatcher } from '../../src/ledger/commit-batcher.js';
import type { LedgerPort } from '../../src/ledger/port.js';
import { describeBackends } from './backends.js';
import { docs, fileInput } from './helpers.js';

async function withFile(
  open: () => Promise<LedgerPort>,
  n: number,
): Promise<{ ledger: LedgerPort; fileId: number; ids: number[] }> {
  const ledger = await open();
  const { fileId } = await ledger.recordFile(fileInput());
  await ledger.insertDocuments(
    fileId,
    docs(n, (i) => ({ number: `N${i}`, ownNumber: true })),
    1_000,
  );
  await ledger.finishReading(fileId, 1_000);
  const ids = (await ledger.claimDue('main', 1_000, n)).map((d) => d.id);
  return { ledger, fileId, ids };
}

describeBackends('the ledger port: read-then-write is one method', ({ open }) => {
  it('finishFile does not finish a file whose document an operator re-queued after its progress was read', async () => {
    const { ledger, fileId, ids } = await withFile(open, 2);
    await ledger.markSending(ids, 1_000);
    await ledger.recordOutcomes(
      ids.map((id) => ({ id, state: 'failed' as const })),
      2_000,
    );
    expect((await ledger.fileProgress(fileId)).final).toBe(true); // the report scheduler's read ...
    await ledger.requeue({ ids: [ids[0]], now: 2_500 }); // ... then `edoc-bridge retry` in another process ...
    expect(await ledger.finishFile(fileId, 3_000)).toBe(false); // ... then settleFile's finishFile
    expect((await ledger.getFile(fileId))?.state).toBe('open');
    await ledger.markSending([ids[0]], 3_500);
    await ledger.recordOutcome(ids[0], { state: 'accepted' }, 4_000);
    expect(await ledger.finishFile(fileId, 4_500)).toBe(true);
    await ledger.close();
  });

  it('a document claimed twice (the claim is a plain read) is marked sending once', async () => {
    const { ledger, ids } = await withFile(open, 1);
    const again = (await ledger.claimDue('main', 1_000, 1)).map((d) => d.id);
    expect(again).toEqual(ids);
    const both = await Promise.all([
      ledger.markSending(ids, 1_000),
      ledger.markSending(again, 1_000),
    ]);
    // either call may win the race (PostgreSQL: two connections); exactly one marks it, the other skips it
    const [winner, loser] = both[0].sending.length > 0 ? both : [both[1], both[0]];
    expect([winner.sending, loser.sending, loser.skipped]).toEqual([ids, [], ids]);
    await ledger.close();
  });
});

describe('CommitBatcher over a backend that answers later', () => {
  it('never overlaps two commits, keeps their order, and respects maxBatch for what waited meanwhile', async () => {
    const batches: number[][] = [];
    let running = 0;
    let overlapped = false;
    const b = new CommitBatcher<number, number>(
      async (items) => {
        running++;
        if (running > 1) overlapped = true;
        batches.push(items);
        await new Promise((resolve) => setTimeout(resolve, 15)); // a network round trip
        running--;
        return items.map((i) => i * 10);
      },
      { maxBatch: 4 },
    );
    const first = b.add(0);
    await new Promise((resolve) => setImmediate(resolve)); // the first commit is under way
    const rest = Array.from({ length: 9 }, (_, i) => b.add(i + 1));
    expect(await Promise.all([first, ...rest])).toEqual(
      Array.from({ length: 10 }, (_, i) => i * 10),
    );
    expect(overlapped).toBe(false);
    expect(batches.flat()).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(Math.max(...batches.map((x) => x.length))).toBeLessThanOrEqual(4);
    await b.flush();
    expect(b.waiting).toBe(0);
  });

  it('flush resolves once everything that waited is committed, also while a commit runs', async () => {
    const committed: number[] = [];
    const b = new CommitBatcher<number, void>(async (items) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      committed.push(...items);
      return items.map(() => undefined);
    });
    void b.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    void b.addLazy(2);
    await b.flush();
    expect(committed).toEqual([1, 2]);
  });
});

describeBackends('the ledger port under concurrent calls', ({ open }) => {
  it('marks each of many documents claimed by several callers at once sending exactly once', async () => {
    const ledger = await open();
    const { fileId } = await ledger.recordFile(fileInput());
    await ledger.insertDocuments(
      fileId,
      docs(60, (i) => ({ number: `N${i}` })),
      1_000,
    );
    await ledger.finishReading(fileId, 1_000);
    const ids = (await ledger.claimDue('main', 1_000, 60)).map((d) => d.id);
    // four callers mark overlapping halves of the batch at the same time (on PostgreSQL: four connections)
    const results = await Promise.all(
      [0, 15, 30, 45].map((from) =>
        ledger.markSending([...ids.slice(from), ...ids.slice(0, from)].slice(0, 30), 1_100),
      ),
    );
    const sent = results.flatMap((r) => r.sending).sort((a, b) => a - b);
    expect(sent).toEqual([...ids].sort((a, b) => a - b));
    expect((await ledger.fileProgress(fileId)).counts.sending).toBe(60);
    await ledger.close();
  });

  it('two intakes of the same content at once: one is new, the other a duplicate', async () => {
    const ledger = await open();
    const results = await Promise.all(
      [1, 2, 3].map((i) =>
        ledger.recordFile(
          fileInput({
            path: `/inbox/invoice/copy-${i}.json`,
            name: `copy-${i}.json`,
            sha256: 'same',
          }),
        ),
      ),
    );
    expect(results.map((r) => r.outcome).sort()).toEqual(['duplicate', 'duplicate', 'new']);
    await ledger.close();
  });
});
