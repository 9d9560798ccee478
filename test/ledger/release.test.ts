/**
 * A file's documents are sendable only once its read is complete and verified
 * (finishReading releases them); an intake whose file changed while read is
 * dropped; new content at the path of a released file flags that file.
 */
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { docs, fileInput, tempDir } from './helpers.js';

describe('release after a verified read', () => {
  it('documents stored while a file is read are not due until finishReading releases them', () => {
    const ledger = Ledger.open(tempDir());
    const { fileId } = ledger.recordFile(fileInput());
    ledger.insertDocuments(fileId, docs(3), 1_000);
    expect(ledger.claimDue('main', 10_000, 10)).toEqual([]);
    expect(ledger.nextDueAt('main')).toBeUndefined();
    ledger.finishReading(fileId, 2_000);
    expect(ledger.claimDue('main', 10_000, 10).map((d) => d.index)).toEqual([0, 1, 2]);
    expect(ledger.nextDueAt('main')).toBe(2_000);
    ledger.close();
  });

  it('dropIntake deletes a file still being read with its documents, and frees its report name', () => {
    const ledger = Ledger.open(tempDir());
    const a = ledger.recordFile(fileInput({ name: 'ventas.csv' }));
    ledger.insertDocuments(a.fileId, docs(3), 1_000);
    expect(ledger.dropIntake(a.fileId, { reason: 'changed while it was read' })).toBe(true);
    expect(ledger.getFile(a.fileId)).toBeUndefined();
    expect(ledger.fileProgress(a.fileId).total).toBe(0);
    const b = ledger.recordFile(fileInput({ name: 'ventas.csv', sha256: 'bbb' }));
    expect(ledger.getFile(b.fileId)?.reportName).toBe('ventas');
    // a released file is never dropped
    ledger.insertDocuments(b.fileId, docs(1), 1_000);
    ledger.finishReading(b.fileId, 1_000);
    expect(ledger.dropIntake(b.fileId, { reason: 'x' })).toBe(false);
    ledger.close();
  });

  it('new content at the path of a file left reading (crash, then the file changed) drops that stale read', () => {
    const ledger = Ledger.open(tempDir());
    const a = ledger.recordFile(fileInput());
    ledger.insertDocuments(a.fileId, docs(2), 1_000);
    const b = ledger.recordFile(fileInput({ sha256: 'grown', now: 5_000 }));
    expect(b.outcome).toBe('new');
    expect(b.changedAfterSend).toBeUndefined();
    expect(ledger.getFile(a.fileId)).toBeUndefined();
    // a dropped file's id is never handed out again (events and logs name files by id)
    expect(b.fileId).toBeGreaterThan(a.fileId);
    ledger.close();
  });

  it('new content at the path of a released, unarchived file flags it, holds back its unsent documents and keeps its report', () => {
    const ledger = Ledger.open(tempDir());
    const a = ledger.recordFile(fileInput({ name: 'ventas.csv', path: '/inbox/invoice/ventas.csv', archive: true }));
    ledger.insertDocuments(a.fileId, docs(3), 1_000);
    ledger.finishReading(a.fileId, 1_000);
    const [first] = ledger.claimDue('main', 1_000, 1);
    ledger.markSending([first.id], 1_100);
    ledger.recordOutcome(first.id, { state: 'accepted' }, 1_200);

    const b = ledger.recordFile(fileInput({ name: 'ventas.csv', path: '/inbox/invoice/ventas.csv', sha256: 'grown',
      archive: true, now: 2_000 }));
    expect(b.outcome).toBe('new');
    expect(b.changedAfterSend).toEqual({ fileId: a.fileId, reportName: 'ventas', newlyFlagged: true });
    const flagged = ledger.getFile(a.fileId);
    expect(flagged?.error?.code).toBe('EDOC_READ_CHANGED_AFTER_SEND');
    expect(flagged?.reportState).toBe('none');
    expect(ledger.fileProgress(a.fileId).counts).toMatchObject({ accepted: 1, invalid: 2, pending: 0 });
    // the new content does not overwrite the report that carries the error
    expect(ledger.getFile(b.fileId)?.reportName).toBe('ventas (2)');
    ledger.close();
  });

  it('an archived file, or one submitted in the foreground and done, is not flagged by a later drop of the same name', () => {
    const ledger = Ledger.open(tempDir());
    const a = ledger.recordFile(fileInput({ archive: true }));
    ledger.insertDocuments(a.fileId, docs(1), 1_000);
    ledger.finishReading(a.fileId, 1_000);
    ledger.markArchived(a.fileId, '/outbox/invoice/archive/a.json', 2_000);
    expect(ledger.recordFile(fileInput({ archive: true, sha256: 'next-day' })).changedAfterSend).toBeUndefined();

    const s = ledger.recordFile(fileInput({ path: '/home/op/s.json', name: 's.json', sha256: 's1', archive: false }));
    ledger.insertDocuments(s.fileId, docs(1, () => ({ number: 'X1' })), 1_000);
    ledger.finishReading(s.fileId, 1_000);
    ledger.db.prepare(`UPDATE documents SET state = 'accepted' WHERE file_id = ?`).run(s.fileId);
    ledger.finishFile(s.fileId, 3_000);
    expect(ledger.recordFile(fileInput({ path: '/home/op/s.json', name: 's.json', sha256: 's2', archive: false }))
      .changedAfterSend).toBeUndefined();
    ledger.close();
  });
});

describe('the new content of a file that changed after sending began', () => {
  it('a document accepted from the first content, with or without its own number, is duplicate there and not sent; new ones are', () => {
    const ledger = Ledger.open(tempDir());
    const at = { name: 'compras.json', path: '/inbox/support-document/compras.json', archive: true };
    // the service numbered document 0 (no own number), document 1 has its own
    const first = (i: number) => (i === 0 ? { number: undefined, ownNumber: false } : {});
    const a = ledger.recordFile(fileInput({ ...at, kind: 'support-document' }));
    ledger.insertDocuments(a.fileId, docs(2, first), 1_000);
    ledger.finishReading(a.fileId, 1_000);
    for (const d of ledger.claimDue('main', 1_000, 2)) {
      ledger.markSending([d.id], 1_100);
      ledger.recordOutcome(d.id, { state: 'accepted' }, 1_200);
    }
    // the writer went on: the same two documents, then a third
    const b = ledger.recordFile(fileInput({ ...at, kind: 'support-document', sha256: 'grown', now: 2_000 }));
    expect(b.changedAfterSend?.fileId).toBe(a.fileId);
    ledger.insertDocuments(b.fileId, docs(3, first), 2_000);
    ledger.finishReading(b.fileId, 2_000);
    expect(ledger.fileProgress(b.fileId).counts).toMatchObject({ duplicate: 2, pending: 1 });
    expect(ledger.claimDue('main', 3_000, 10).map((d) => d.index)).toEqual([2]);
    ledger.close();
  });
});
