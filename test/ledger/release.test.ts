/**
 * A file's documents are sendable only once its read is complete and verified
 * (finishReading releases them); an intake whose file changed while read is
 * dropped; new content at the path of a released file flags that file.
 */
import { describe, expect, it } from 'vitest';
import { describeBackends } from './backends.js';
import { docs, fileInput } from './helpers.js';

describeBackends('the ledger', ({ open }) => {
  describe('release after a verified read', () => {
    it('documents stored while a file is read are not due until finishReading releases them', async () => {
      const ledger = await open();
      const { fileId } = await ledger.recordFile(fileInput());
      await ledger.insertDocuments(fileId, docs(3), 1_000);
      expect(await ledger.claimDue('main', 10_000, 10)).toEqual([]);
      expect(await ledger.nextDueAt('main')).toBeUndefined();
      await ledger.finishReading(fileId, 2_000);
      expect((await ledger.claimDue('main', 10_000, 10)).map((d) => d.index)).toEqual([0, 1, 2]);
      expect(await ledger.nextDueAt('main')).toBe(2_000);
      await ledger.close();
    });

    it('dropIntake deletes a file still being read with its documents, and frees its report name', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput({ name: 'ventas.csv' }));
      await ledger.insertDocuments(a.fileId, docs(3), 1_000);
      expect(await ledger.dropIntake(a.fileId, { reason: 'changed while it was read' })).toBe(true);
      expect(await ledger.getFile(a.fileId)).toBeUndefined();
      expect((await ledger.fileProgress(a.fileId)).total).toBe(0);
      const b = await ledger.recordFile(fileInput({ name: 'ventas.csv', sha256: 'bbb' }));
      expect((await ledger.getFile(b.fileId))?.reportName).toBe('ventas');
      // a released file is never dropped
      await ledger.insertDocuments(b.fileId, docs(1), 1_000);
      await ledger.finishReading(b.fileId, 1_000);
      expect(await ledger.dropIntake(b.fileId, { reason: 'x' })).toBe(false);
      await ledger.close();
    });

    it('new content at the path of a file left reading (crash, then the file changed) drops that stale read', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput());
      await ledger.insertDocuments(a.fileId, docs(2), 1_000);
      const b = await ledger.recordFile(fileInput({ sha256: 'grown', now: 5_000 }));
      expect(b.outcome).toBe('new');
      expect(b.changedAfterSend).toBeUndefined();
      expect(await ledger.getFile(a.fileId)).toBeUndefined();
      // a dropped file's id is never handed out again (events and logs name files by id)
      expect(b.fileId).toBeGreaterThan(a.fileId);
      await ledger.close();
    });

    it('new content at the path of a released, unarchived file flags it, holds back its unsent documents and keeps its report', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(
        fileInput({ name: 'ventas.csv', path: '/inbox/invoice/ventas.csv', archive: true }),
      );
      await ledger.insertDocuments(a.fileId, docs(3), 1_000);
      await ledger.finishReading(a.fileId, 1_000);
      const [first] = await ledger.claimDue('main', 1_000, 1);
      await ledger.markSending([first.id], 1_100);
      await ledger.recordOutcome(first.id, { state: 'accepted' }, 1_200);

      const b = await ledger.recordFile(
        fileInput({
          name: 'ventas.csv',
          path: '/inbox/invoice/ventas.csv',
          sha256: 'grown',
          archive: true,
          now: 2_000,
        }),
      );
      expect(b.outcome).toBe('new');
      expect(b.changedAfterSend).toEqual({
        fileId: a.fileId,
        reportName: 'ventas',
        newlyFlagged: true,
      });
      const flagged = await ledger.getFile(a.fileId);
      expect(flagged?.error?.code).toBe('EDOC_READ_CHANGED_AFTER_SEND');
      expect(flagged?.reportState).toBe('none');
      expect((await ledger.fileProgress(a.fileId)).counts).toMatchObject({
        accepted: 1,
        invalid: 2,
        pending: 0,
      });
      // the new content does not overwrite the report that carries the error
      expect((await ledger.getFile(b.fileId))?.reportName).toBe('ventas (2)');
      await ledger.close();
    });

    it('says how many documents were held back, and that one whose attempt may have reached the service may be issued', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(
        fileInput({ name: 'ventas.csv', path: '/inbox/invoice/ventas.csv', archive: true }),
      );
      await ledger.insertDocuments(a.fileId, docs(3), 1_000);
      await ledger.finishReading(a.fileId, 1_000);
      // all three sent once: a 401 refused the first two (paused, waiting), a 500 answered the third
      const sent = await ledger.claimDue('main', 1_000, 3);
      await ledger.markSending(
        sent.map((d) => d.id),
        1_100,
      );
      await ledger.recordOutcomes(
        sent.map((d, i) => ({
          id: d.id,
          state: 'pending' as const,
          nextAttemptAt: 60_000,
          maybeDelivered: i === 2,
        })),
        1_200,
      );
      // the operator corrects the export and writes it over the file while they wait
      await ledger.recordFile(
        fileInput({
          name: 'ventas.csv',
          path: '/inbox/invoice/ventas.csv',
          sha256: 'corrected',
          archive: true,
          now: 2_000,
        }),
      );
      const flagged = await ledger.getFile(a.fileId);
      expect(flagged?.error?.message).toBe(
        'ventas.csv changed after its documents were released for sending, and the original was not archived: ' +
          'none of its 3 documents was settled from the earlier content; 3 waiting to be sent were held back, not ' +
          'sent from it (1 of them after an attempt that may have reached the service: they may be issued already). ' +
          'The new content is taken as a new file (documents accepted already are reported duplicate there).',
      );
      const held = await Promise.all(sent.map((d) => ledger.getDocument(d.id)));
      expect(held.map((d) => d?.state)).toEqual(['invalid', 'invalid', 'invalid']);
      expect(held.map((d) => d?.errors[0]?.message.slice(0, 14))).toEqual([
        'Not sent: the ',
        'Not sent: the ',
        'Not sent again',
      ]);
      expect(held[2]?.errors[0]?.message).toContain('may be issued already');
      await ledger.close();
    });

    it('an archived file, or one submitted in the foreground and done, is not flagged by a later drop of the same name', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput({ archive: true }));
      await ledger.insertDocuments(a.fileId, docs(1), 1_000);
      await ledger.finishReading(a.fileId, 1_000);
      await ledger.markArchived(a.fileId, '/outbox/invoice/archive/a.json', 2_000);
      expect(
        (await ledger.recordFile(fileInput({ archive: true, sha256: 'next-day' })))
          .changedAfterSend,
      ).toBeUndefined();

      const s = await ledger.recordFile(
        fileInput({ path: '/home/op/s.json', name: 's.json', sha256: 's1', archive: false }),
      );
      await ledger.insertDocuments(
        s.fileId,
        docs(1, () => ({ number: 'X1' })),
        1_000,
      );
      await ledger.finishReading(s.fileId, 1_000);
      await ledger.sql.run(`UPDATE documents SET state = 'accepted' WHERE file_id = ?`, [s.fileId]);
      await ledger.finishFile(s.fileId, 3_000);
      expect(
        (
          await ledger.recordFile(
            fileInput({ path: '/home/op/s.json', name: 's.json', sha256: 's2', archive: false }),
          )
        ).changedAfterSend,
      ).toBeUndefined();
      await ledger.close();
    });
  });

  describe('the new content of a file that changed after sending began', () => {
    it('a document accepted from the first content, with or without its own number, is duplicate there and not sent; new ones are', async () => {
      const ledger = await open();
      const at = {
        name: 'compras.json',
        path: '/inbox/support-document/compras.json',
        archive: true,
      };
      // the service numbered document 0 (no own number), document 1 has its own
      const first = (i: number) => (i === 0 ? { number: undefined, ownNumber: false } : {});
      const a = await ledger.recordFile(fileInput({ ...at, kind: 'support-document' }));
      await ledger.insertDocuments(a.fileId, docs(2, first), 1_000);
      await ledger.finishReading(a.fileId, 1_000);
      for (const d of await ledger.claimDue('main', 1_000, 2)) {
        await ledger.markSending([d.id], 1_100);
        await ledger.recordOutcome(d.id, { state: 'accepted' }, 1_200);
      }
      // the writer went on: the same two documents, then a third
      const b = await ledger.recordFile(
        fileInput({ ...at, kind: 'support-document', sha256: 'grown', now: 2_000 }),
      );
      expect(b.changedAfterSend?.fileId).toBe(a.fileId);
      await ledger.insertDocuments(b.fileId, docs(3, first), 2_000);
      await ledger.finishReading(b.fileId, 2_000);
      expect((await ledger.fileProgress(b.fileId)).counts).toMatchObject({
        duplicate: 2,
        pending: 1,
      });
      expect((await ledger.claimDue('main', 3_000, 10)).map((d) => d.index)).toEqual([2]);
      await ledger.close();
    });
  });
});
