/**
 * Documents of one file stored as different kinds (a mapping's `route`: one export, several kinds), on
 * both backends: each is keyed, claimed and deduplicated as its own kind, the file keeps the folder's.
 */
import { expect, it } from 'vitest';
import { describeBackends } from './backends.js';
import { docs, fileInput } from './helpers.js';

describeBackends('routed documents in the ledger', ({ open }) => {
  it('each document is keyed and claimed as its routed kind; the same number under another kind is no duplicate', async () => {
    const ledger = await open();
    try {
      const { fileId } = await ledger.recordFile(
        fileInput({ name: 'mixed.csv', path: '/inbox/invoice/mixed.csv' }),
      );
      // index 0 an invoice (the folder's kind, no kind given), 1 a credit note, 2 a debit note: all numbered SETP/1
      await ledger.insertDocuments(
        fileId,
        docs(3, (i) => ({
          number: 'SETP/1',
          ...(i === 1 ? { kind: 'credit-note' as const } : {}),
          ...(i === 2 ? { kind: 'debit-note' as const } : {}),
        })),
        1_000,
      );
      await ledger.finishReading(fileId, 1_000);
      const due = await ledger.claimDue('main', 2_000, 10);
      expect(due.map((d) => [d.index, d.kind, d.key]).sort()).toEqual([
        [0, 'invoice', 'main/invoice/SETP/1'],
        [1, 'credit-note', 'main/credit-note/SETP/1'],
        [2, 'debit-note', 'main/debit-note/SETP/1'],
      ]);
      expect((await ledger.fileProgress(fileId)).counts.pending).toBe(3);
    } finally {
      await ledger.close();
    }
  });
});
