/**
 * Documents the service numbers (POS receipts here) are deduped by their ERP key (company + kind + the
 * mapping's key columns): one issued, being sent or in doubt keeps every other copy from being sent, on
 * SQLite and on PostgreSQL, where two marks of two copies run at once on two connections.
 */
import { expect, it } from 'vitest';
import type { LedgerPort } from '../../src/ledger/port.js';
import type { DocumentRow, NewDocument } from '../../src/ledger/types.js';
import { describeBackends } from './backends.js';
import { fileInput } from './helpers.js';

const RECEIPT = JSON.stringify(['0', '1-1045']);

/** A receipt numbered by the service, with the ERP key `erpKey` and the content digest `digest`. */
function receipt(index: number, erpKey: string | undefined, digest = 'd1'): NewDocument {
  return {
    index,
    source: { rows: [index + 2], erpKey: erpKey === undefined ? '' : erpKey },
    number: null,
    ownNumber: false,
    request: { documento: { codigoVenta: erpKey } },
    raw: `row ${index}`,
    content: JSON.stringify({
      digest,
      payable: '30400.00',
      customer: '',
      lines: 2,
      date: '2026-11-21',
    }),
    ...(erpKey === undefined ? {} : { erpKey }),
  };
}

/** A POS file holding `documents`, read and due. */
async function posFile(
  ledger: LedgerPort,
  name: string,
  documents: NewDocument[],
  company = 'main',
): Promise<number> {
  const { fileId } = await ledger.recordFile(
    fileInput({ name, path: `/inbox/pos/${name}`, sha256: name, kind: 'pos', company }),
  );
  await ledger.insertDocuments(fileId, documents, 1_000);
  await ledger.finishReading(fileId, 1_000);
  return fileId;
}

async function rowsOf(ledger: LedgerPort, fileId: number): Promise<DocumentRow[]> {
  const out: DocumentRow[] = [];
  for await (const d of ledger.iterateFileDocuments(fileId)) out.push(d);
  return out;
}

async function idsOf(ledger: LedgerPort, fileId: number): Promise<number[]> {
  return (await rowsOf(ledger, fileId)).map((d) => d.id);
}

describeBackends('a document the service numbers is deduped by its ERP key', ({ open }) => {
  it('two files holding one receipt, marked at once (two connections on PostgreSQL): one is sent, the other waits', async () => {
    const ledger = await open();
    for (let round = 0; round < 5; round++) {
      const key = JSON.stringify(['0', `1-20${round}`]);
      const [x] = await idsOf(ledger, await posFile(ledger, `a${round}.csv`, [receipt(0, key)]));
      const [y] = await idsOf(ledger, await posFile(ledger, `b${round}.csv`, [receipt(0, key)]));
      const both = await Promise.all([
        ledger.markSending([x], 2_000),
        ledger.markSending([y], 2_000),
      ]);
      expect(both.flatMap((r) => r.sending)).toHaveLength(1);
      expect(both.flatMap((r) => r.deferred)).toHaveLength(1);
      // one batch holding both: the first goes, the second waits
      const z = await idsOf(ledger, await posFile(ledger, `c${round}.csv`, [receipt(0, key)]));
      const w = await idsOf(ledger, await posFile(ledger, `d${round}.csv`, [receipt(0, key)]));
      const together = await ledger.markSending([...z, ...w], 3_000);
      expect(together.sending).toEqual([]); // the first copy is still `sending`
      expect(together.deferred).toEqual([...z, ...w]);
    }
    await ledger.close();
  });

  it('once one copy is accepted, a copy marked later and one read later are duplicates naming the file and number', async () => {
    const ledger = await open();
    const [x] = await idsOf(ledger, await posFile(ledger, 'lunes.csv', [receipt(0, RECEIPT)]));
    const [y] = await idsOf(
      ledger,
      await posFile(ledger, 'lunes-martes.csv', [receipt(0, RECEIPT)]),
    );
    expect((await ledger.markSending([x], 2_000)).sending).toEqual([x]);
    expect((await ledger.markSending([y], 2_000)).deferred).toEqual([y]);
    await ledger.recordOutcomes([{ id: x, state: 'accepted', key: 'main/pos/POS/4' }], 2_500);
    const marked = await ledger.markSending([y], 5_000);
    expect(marked.duplicate).toEqual([y]);
    const message =
      'The document with ERP key ["0","1-1045"] was issued already as POS4 (accepted from lunes.csv); not sent again.';
    expect((await ledger.getDocument(y))?.errors).toEqual([
      { code: 'EDOC_LEDGER_DUPLICATE_ERP_KEY', message },
    ]);
    // a third export read after the acceptance: duplicate at intake, never due
    const third = await posFile(ledger, 'semana.csv', [
      receipt(0, RECEIPT),
      receipt(1, JSON.stringify(['0', '1-1046'])),
    ]);
    const docs = await rowsOf(ledger, third);
    expect(docs.map((d) => d.state)).toEqual(['duplicate', 'pending']);
    expect(docs[0].errors).toEqual([{ code: 'EDOC_LEDGER_DUPLICATE_ERP_KEY', message }]);
    // other content under the same key (the payable amount changed): EDOC_ISSUED_OTHER_CONTENT
    const changed = await posFile(ledger, 'corregido.csv', [
      {
        ...receipt(0, RECEIPT, 'd2'),
        content: JSON.stringify({
          digest: 'd2',
          payable: '31400.00',
          customer: '',
          lines: 2,
          date: '2026-11-21',
        }),
      },
    ]);
    const [again] = await rowsOf(ledger, changed);
    expect(again.state).toBe('duplicate');
    expect((again.errors as { code: string }[])[0].code).toBe('EDOC_ISSUED_OTHER_CONTENT');
    await ledger.close();
  });

  it('a copy waits while the first is in doubt, and goes when a person settles it as not issued', async () => {
    const ledger = await open();
    const [x] = await idsOf(ledger, await posFile(ledger, 'a.csv', [receipt(0, RECEIPT)]));
    const [y] = await idsOf(ledger, await posFile(ledger, 'b.csv', [receipt(0, RECEIPT)]));
    await ledger.markSending([x], 2_000);
    await ledger.recordOutcomes(
      [{ id: x, state: 'in-doubt', maybeDelivered: true, doubt: 'no-answer' }],
      2_500,
    );
    const waiting = await ledger.markSending([y], 3_000);
    expect(waiting.deferred).toEqual([y]);
    // deferred a minute (ERP_KEY_IN_DOUBT_DELAY_MS), not polled every two seconds
    expect(await ledger.nextDueAt('main')).toBe(63_000);
    await ledger.close();
  });

  it('a copy held for a first copy in doubt is due at once when a person confirms that first copy issued', async () => {
    const ledger = await open();
    const [x] = await idsOf(ledger, await posFile(ledger, 'a.csv', [receipt(0, RECEIPT)]));
    const [y] = await idsOf(ledger, await posFile(ledger, 'b.csv', [receipt(0, RECEIPT)]));
    await ledger.markSending([x], 2_000);
    await ledger.recordOutcomes(
      [{ id: x, state: 'in-doubt', maybeDelivered: true, doubt: 'no-answer' }],
      2_500,
    );
    expect((await ledger.markSending([y], 3_000)).deferred).toEqual([y]);
    expect(await ledger.nextDueAt('main')).toBe(63_000); // 3,000 + 60,000
    const confirmed = await ledger.confirmIssued([x], 'checked at the authority', 4_000, 'cli');
    expect([confirmed.ids, confirmed.released]).toEqual([[x], 1]);
    // due at the confirmation's moment, and its claim makes it the first copy's duplicate
    expect(await ledger.nextDueAt('main')).toBe(4_000);
    const marked = await ledger.markSending([y], 4_500);
    expect(marked.duplicate).toEqual([y]);
    await ledger.close();
  });

  it('another company, another kind, or no ERP key (JSON input, keyRepeats): not held', async () => {
    const ledger = await open();
    const [x] = await idsOf(ledger, await posFile(ledger, 'a.csv', [receipt(0, RECEIPT)]));
    const [y] = await idsOf(ledger, await posFile(ledger, 'b.csv', [receipt(0, RECEIPT)], 'other'));
    const [p] = await idsOf(ledger, await posFile(ledger, 'c.csv', [receipt(0, undefined)]));
    const [q] = await idsOf(ledger, await posFile(ledger, 'd.csv', [receipt(0, undefined)]));
    const marked = await ledger.markSending([x, y, p, q], 2_000);
    expect(marked.sending).toEqual([x, y, p, q]);
    await ledger.close();
  });
});
