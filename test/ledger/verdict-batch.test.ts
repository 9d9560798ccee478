/**
 * A batch of verdicts is one UPDATE and one events INSERT (sending.ts, dialect.ts valuesTable), on both
 * backends: it must leave every document and every event exactly as committing the same verdicts one by
 * one does (each its own statement), whatever the fields (texts with quotes, escapes and non-ASCII, nulls,
 * the sticky flag, a key kept, a document no longer `sending`).
 */
import { expect, it } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import type { OutcomeRecord } from '../../src/ledger/types.js';
import { describeBackends } from './backends.js';
import { docs, fileInput } from './helpers.js';

/** A ledger with six documents marked `sending` (the first has its own key) and one left pending. */
async function sendingLedger(
  open: () => Promise<Ledger>,
): Promise<{ ledger: Ledger; ids: number[] }> {
  const ledger = await open();
  const { fileId } = await ledger.recordFile(fileInput());
  await ledger.insertDocuments(
    fileId,
    docs(7, (i) => (i === 0 ? {} : { number: null, ownNumber: false })),
    1_000,
  );
  await ledger.finishReading(fileId, 1_000);
  const ids = (await ledger.claimDue('main', 5_000, 100)).map((d) => d.id).sort((a, b) => a - b);
  expect((await ledger.markSending(ids.slice(0, 6), 2_000)).sending).toHaveLength(6);
  return { ledger, ids };
}

function verdicts(ids: number[]): OutcomeRecord[] {
  return [
    {
      id: ids[0]!,
      state: 'accepted',
      resultCode: '200',
      httpStatus: 200,
      key: 'ignored: the document has its own key',
      response: { Cude: 'abc', Qr: 'https://x/?a=1&b="2"', note: 'Señal \u2028 \\ fin' },
      warnings: ['aviso: "uno"', 'dos'],
    },
    {
      id: ids[1]!,
      state: 'rejected',
      resultCode: '99',
      httpStatus: 200,
      errors: [{ code: 'FAK24', message: 'NIT no válido', field: 'Nit' }],
      outcome: { kind: 'final', text: 'línea\nnueva' },
    },
    {
      id: ids[2]!,
      state: 'pending',
      nextAttemptAt: 9_000,
      httpStatus: 503,
      maybeDelivered: true,
      note: 'retry after 503',
    },
    {
      id: ids[3]!,
      state: 'in-doubt',
      doubt: 'repeated-number',
      httpStatus: 409,
      key: 'invoice/main/SETP/990000777',
    },
    { id: ids[4]!, state: 'failed', resultCode: null, httpStatus: null, errors: [], warnings: [] },
    {
      id: ids[5]!,
      state: 'accepted',
      resultCode: '200',
      httpStatus: 200,
      key: 'invoice/main/SETP/990000555',
      maybeDelivered: false,
    },
    // still pending: no verdict applies, no event
    { id: ids[6]!, state: 'accepted', resultCode: '200', httpStatus: 200 },
  ];
}

const COLUMNS = `id, state, next_attempt_at, last_outcome, result_code, http_status, errors, warnings, response, key, updated_at,
  maybe_delivered, doubt, attempts`;

async function stateOf(ledger: Ledger, ids: number[]): Promise<unknown> {
  const documents = await ledger.sql.all(`SELECT ${COLUMNS} FROM documents ORDER BY id`);
  const events = await ledger.sql.all(
    `SELECT at, file_id, document_id, type, data FROM events WHERE at = 3000 ORDER BY id`,
  );
  // ids differ between the two ledgers only by an offset on PostgreSQL (one sequence per database): compare by position
  const pos = (id: unknown): number => ids.indexOf(Number(id));
  return {
    documents: documents.map((d) => ({ ...d, id: pos(d.id) })),
    events: events.map((e) => ({ ...e, document_id: pos(e.document_id), file_id: null })),
  };
}

describeBackends('a batch of verdicts in one statement', ({ open }) => {
  it('leaves documents and events exactly as the same verdicts committed one by one', async () => {
    const batch = await sendingLedger(open);
    const single = await sendingLedger(open);
    try {
      const done = await batch.ledger.recordOutcomes(verdicts(batch.ids), 3_000);
      expect(done.applied).toEqual(batch.ids.slice(0, 6));
      expect(done.fileIds).toHaveLength(1);
      for (const record of verdicts(single.ids))
        await single.ledger.recordOutcomes([record], 3_000);
      const got = await stateOf(batch.ledger, batch.ids);
      expect(got).toEqual(await stateOf(single.ledger, single.ids));
      // what the texts came back as, byte for byte
      const first = await batch.ledger.getDocument(batch.ids[0]!);
      expect(first?.response).toEqual(verdicts(batch.ids)[0]!.response);
      expect(first?.warnings).toEqual(['aviso: "uno"', 'dos']);
      expect(first?.key).not.toContain('ignored');
      expect((got as { events: unknown[] }).events).toHaveLength(7); // six verdicts, one maybe-delivered
    } finally {
      await batch.ledger.close();
      await single.ledger.close();
    }
  });

  it('a document twice in one batch is taken in order, the first verdict standing', async () => {
    const { ledger, ids } = await sendingLedger(open);
    try {
      const done = await ledger.recordOutcomes(
        [
          { id: ids[1]!, state: 'failed' },
          { id: ids[1]!, state: 'accepted' },
          { id: ids[2]!, state: 'accepted' },
        ],
        3_000,
      );
      expect(done.applied).toEqual([ids[1], ids[2]]);
      expect((await ledger.getDocument(ids[1]!))?.state).toBe('failed');
    } finally {
      await ledger.close();
    }
  });

  it('an answer given as its text is stored as that text and reads back as its value', async () => {
    const { ledger, ids } = await sendingLedger(open);
    try {
      const text = '{ "Cude": "x\\u00e9",\n "Qr": "https://x/?a=1&b=2" }';
      await ledger.recordOutcomes(
        [
          { id: ids[0]!, state: 'accepted', responseText: text, response: { ignored: true } },
          { id: ids[1]!, state: 'failed', response: 'plain text' },
        ],
        3_000,
      );
      const stored = await ledger.sql.all<{ response: string }>(
        'SELECT response FROM documents WHERE id IN (?, ?) ORDER BY id',
        [ids[0], ids[1]],
      );
      expect(stored.map((r) => r.response)).toEqual([text, '"plain text"']);
      expect((await ledger.getDocument(ids[0]!))?.response).toEqual({
        Cude: 'x\u00e9',
        Qr: 'https://x/?a=1&b=2',
      });
    } finally {
      await ledger.close();
    }
  });
});
