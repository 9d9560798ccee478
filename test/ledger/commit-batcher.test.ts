import { describe, expect, it } from 'vitest';
import { CommitBatcher } from '../../src/ledger/commit-batcher.js';
import { Ledger } from '../../src/ledger/ledger.js';
import type { NewDocument } from '../../src/ledger/types.js';
import { collect, docs, fileInput, tempDir } from './helpers.js';

describe('batched commits', () => {
  it('marks the documents of one turn sending in one transaction, each caller learning its own result', async () => {
    const ledger = Ledger.open(tempDir());
    const { fileId } = await ledger.recordFile(fileInput());
    await ledger.insertDocuments(fileId, docs(20), 1_000);
    await ledger.finishReading(fileId, 1_000);
    let commits = 0;
    const gate = new CommitBatcher<number, 'sending' | 'duplicate' | 'skipped'>(async (ids) => {
      commits++;
      const r = await ledger.markSending(ids);
      return ids.map((id) =>
        r.sending.includes(id) ? 'sending' : r.duplicate.includes(id) ? 'duplicate' : 'skipped',
      );
    });
    const due = await ledger.claimDue('main', 1_000, 20);
    const results = await Promise.all(due.map((d) => gate.add(d.id)));
    expect(commits).toBe(1);
    expect(results.every((r) => r === 'sending')).toBe(true);
    expect(await gate.add(due[0].id)).toBe('skipped');
    expect(commits).toBe(2);
    expect((await ledger.fileProgress(fileId)).counts.sending).toBe(20);

    const outcomes = new CommitBatcher(
      async (records: { id: number }[]) => {
        commits++;
        const { applied } = await ledger.recordOutcomes(
          records.map((r) => ({ id: r.id, state: 'accepted' as const })),
        );
        return records.map((r) => applied.includes(r.id));
      },
      { maxBatch: 8 },
    );
    const applied = await Promise.all(due.map((d) => outcomes.add({ id: d.id })));
    expect(applied.every(Boolean)).toBe(true);
    expect(commits).toBe(2 + 3); // 8 + 8 at the size cap, 4 at the end of the turn
    expect((await ledger.fileProgress(fileId)).final).toBe(true);
    await ledger.close();
  });

  it('lets lazy items wait for the next eager one, or for lazyMs at the latest', async () => {
    const batches: string[][] = [];
    const b = new CommitBatcher<string, string>(
      async (items) => {
        batches.push(items);
        return items.map((i) => `${i}!`);
      },
      { lazyMs: 30 },
    );
    const lazy1 = b.addLazy('verdict-1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([]); // a lazy item alone does not commit at the end of the turn
    const lazy2 = b.addLazy('verdict-2');
    const mark = b.add('mark-1');
    expect(await mark).toBe('mark-1!');
    expect(await lazy1).toBe('verdict-1!');
    expect(await lazy2).toBe('verdict-2!');
    expect(batches).toEqual([['verdict-1', 'verdict-2', 'mark-1']]); // one commit for all three

    const started = Date.now();
    expect(await b.addLazy('verdict-3')).toBe('verdict-3!');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(batches).toHaveLength(2);
    expect(b.waiting).toBe(0);
  });

  it('rejects every waiter of a batch whose commit failed', async () => {
    const b = new CommitBatcher<number, number>(async () => {
      throw new Error('disk full');
    });
    await expect(Promise.all([b.add(1), b.add(2)])).rejects.toThrow('disk full');
  });

  it('inserts an async stream of documents in batches', async () => {
    const ledger = Ledger.open(tempDir());
    const { fileId } = await ledger.recordFile(fileInput());
    async function* stream(): AsyncGenerator<NewDocument> {
      for (const d of docs(2_500, (i) => ({
        problems: i === 7 ? [{ message: 'bad' }] : undefined,
      })))
        yield d;
    }
    expect(await ledger.insertDocumentStream(fileId, stream(), 1_000)).toEqual({
      inserted: 2_500,
      invalid: 1,
      duplicate: 0,
    });
    expect((await collect(ledger.iterateFileDocuments(fileId))).map((d) => d.index)).toEqual(
      Array.from({ length: 2_500 }, (_, i) => i),
    );
    await ledger.close();
  });
});
