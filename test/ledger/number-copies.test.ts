/**
 * The ledger's reads and writes behind resolve's copies of one number and a note's unknown reference,
 * on both backends: every copy under a key with its file, place, state and payable amount; a failed
 * copy that may have reached the service confirmed issued; the intake's warning of a note stored before
 * it is sent and read back by the sender (which keeps it beside the service's in the verdict).
 */
import { expect, it } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import type { NewDocument } from '../../src/ledger/types.js';
import { describeBackends } from './backends.js';
import { fileInput } from './helpers.js';

/** SETP990900001 carrying `payable` (its content summary, as intake stores it). */
function copy(payable: string, digest: string): NewDocument {
  return {
    index: 0,
    source: { rows: [2] },
    number: 'SETP/990900001',
    ownNumber: true,
    request: { payable },
    raw: `{"payable":"${payable}"}`,
    content: JSON.stringify({ digest, payable }),
  };
}

async function addFile(ledger: Ledger, name: string, doc: NewDocument): Promise<number> {
  const { fileId } = await ledger.recordFile(
    fileInput({ path: `/inbox/invoice/${name}`, name, sha256: name }),
  );
  await ledger.insertDocuments(fileId, [doc], 1_000);
  await ledger.finishReading(fileId, 1_000);
  return fileId;
}

describeBackends('copies of one number', ({ open }) => {
  it('lists every copy with its file, place, state and payable amount; a failed copy that may have reached the service is confirmed issued', async () => {
    const ledger = await open();
    try {
      await addFile(ledger, 'ventas-21.csv', copy('2380.00', 'a'.repeat(32)));
      const [first] = await ledger.claimDue('main', 2_000, 10);
      await ledger.markSending([first.id], 2_000);
      await ledger.recordOutcome(first.id, { state: 'failed', maybeDelivered: true }, 3_000);
      await addFile(ledger, 'ventas-21-corregido.csv', copy('3094.00', 'b'.repeat(32)));
      const [second] = await ledger.claimDue('main', 4_000, 10);
      await ledger.markSending([second.id], 4_000);
      await ledger.recordOutcome(second.id, { state: 'in-doubt', doubt: 'repeated-number' }, 5_000);

      const copies = await ledger.numberCopies('main/invoice/SETP/990900001');
      expect(
        copies.map((c) => [c.file, c.index, c.source.rows, c.state, c.maybeDelivered, c.payable]),
      ).toEqual([
        ['ventas-21.csv', 0, [2], 'failed', true, '2380.00'],
        ['ventas-21-corregido.csv', 0, [2], 'in-doubt', false, '3094.00'],
      ]);
      expect(copies[1].doubt).toBe('repeated-number');

      const confirmed = await ledger.confirmIssued([first.id], 'checked', 6_000, 'cli');
      expect(confirmed.ids).toEqual([first.id]);
      expect((await ledger.getDocument(first.id))?.state).toBe('accepted');
    } finally {
      await ledger.close();
    }
  });

  it("a note confirmed issued by hand keeps its unknown-reference warning beside the operator's words", async () => {
    const ledger = await open();
    try {
      const fileId = await addFile(ledger, 'notas-2.json', copy('100.00', 'd'.repeat(32)));
      const warning = 'EDOC_LEDGER_REFERENCE_UNKNOWN: it references SETP2';
      await ledger.warnUnknownReferences(fileId, [{ index: 0, warning }]);
      const [due] = await ledger.claimDue('main', 2_000, 10);
      await ledger.markSending([due.id], 2_000);
      // the sender's verdict keeps the bridge's warning (submit/outcome-record.ts)
      await ledger.recordOutcome(
        due.id,
        { state: 'in-doubt', doubt: 'no-answer', warnings: [warning] },
        3_000,
      );
      await ledger.confirmIssued([due.id], 'seen on the service', 4_000, 'cli');
      const doc = await ledger.getDocument(due.id);
      expect(doc?.state).toBe('accepted');
      expect(doc?.warnings).toEqual([warning, 'seen on the service']);
    } finally {
      await ledger.close();
    }
  });

  it("stores a note's unknown-reference warning before it is sent; the sender reads it back, to keep it in the verdict", async () => {
    const ledger = await open();
    try {
      const fileId = await addFile(ledger, 'notas.json', copy('100.00', 'c'.repeat(32)));
      await ledger.warnUnknownReferences(fileId, [
        { index: 0, warning: 'EDOC_LEDGER_REFERENCE_UNKNOWN: it references SETP1' },
      ]);
      const [due] = await ledger.claimDue('main', 2_000, 10);
      expect(due.warnings).toEqual(['EDOC_LEDGER_REFERENCE_UNKNOWN: it references SETP1']);
    } finally {
      await ledger.close();
    }
  });
});
