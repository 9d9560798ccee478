/**
 * A note whose reference its own company does not know, while another company of the ledger issued that
 * number (a credit note dropped in the wrong company's folder): held with EDOC_LEDGER_OTHER_COMPANY naming
 * that company and file, never sent; one its own company knows, or that no company knows, is not.
 */
import { expect, it } from 'vitest';
import type { NewDocument } from '../../src/ledger/types.js';
import { describeBackends } from './backends.js';
import { fileInput, noteAt } from './helpers.js';

const invoice = (n: number): NewDocument => ({
  index: 0,
  source: { rows: [2] },
  number: `SETP/${n}`,
  ownNumber: true,
  raw: '',
});

describeBackends("a note in another company's folder", (b) => {
  it('is held naming the company that issued the number; unknown and own references are not', async () => {
    const ledger = await b.open();
    const a = await ledger.recordFile(
      fileInput({ company: 'main', path: '/in/main/invoice/v.csv', name: 'v.csv', sha256: 'a1' }),
    );
    await ledger.insertDocuments(a.fileId, [invoice(990000001)], 1_000);
    await ledger.finishReading(a.fileId, 1_000);
    const [doc] = await ledger.claimDue('main', 2_000, 1);
    await ledger.markSending([doc!.id]);
    await ledger.recordOutcome(doc!.id, { state: 'accepted', resultCode: '200', httpStatus: 200 });

    const n = await ledger.recordFile(
      fileInput({
        company: 'other',
        kind: 'credit-note',
        path: '/in/other/credit-note/nc.csv',
        name: 'nc.csv',
        sha256: 'n1',
      }),
    );
    const r = await ledger.insertDocuments(
      n.fileId,
      [noteAt(0, 'SETP990000001'), noteAt(1, 'SETP990000009')],
      3_000,
    );
    expect(r.byReference).toEqual([
      {
        index: 0,
        notIssued:
          "Not sent: it references SETP990000001, which company main issued (v.csv), not other: the note seems dropped in other's folder instead of main's, and sent it would be issued by other. Drop it in main's folder. If other issued a document under that number too, release it: edoc-bridge retry --document KEY --other-company.",
        notIssuedCode: 'EDOC_LEDGER_OTHER_COMPANY',
      },
      { index: 1, unknown: ['SETP990000009'] },
    ]);
    const rows = await ledger.sql.all<{ idx: number; state: string }>(
      'SELECT idx, state FROM documents WHERE file_id = ? ORDER BY idx',
      [n.fileId],
    );
    expect(rows.map((x) => x.state)).toEqual(['invalid', 'pending']);

    // main's own note naming it goes as usual
    const m = await ledger.recordFile(
      fileInput({
        company: 'main',
        kind: 'credit-note',
        path: '/in/main/credit-note/nc.csv',
        name: 'nc.csv',
        sha256: 'm1',
      }),
    );
    const own = await ledger.insertDocuments(m.fileId, [noteAt(0, 'SETP990000001')], 4_000);
    expect(own.byReference).toBeUndefined();
    await ledger.close();
  });
});
