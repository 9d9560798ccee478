/**
 * Issue 12 item 1: "could an attempt of ours with this number have reached the service?" is a sticky
 * ledger fact (migration 4), set in the commit of the attempt that may have delivered, never cleared by
 * retry, resolve or recovery, and asked across every document of the number's family.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Ledger, LEDGER_FILE } from '../../src/ledger/ledger.js';
import { MIGRATIONS } from '../../src/ledger/migrations.js';
import type { DueDocument, NewDocument } from '../../src/ledger/types.js';
import type { DocumentKind } from '../../src/kinds/index.js';
import { describeBackends } from './backends.js';
import { fileInput, tempDir } from './helpers.js';

function numbered(index: number, number: string): NewDocument {
  return {
    index,
    source: { lines: [index + 1] },
    number,
    ownNumber: true,
    request: { n: number },
    raw: `{"n":"${number}"}`,
  };
}

/** Records a file of `kind` with the given numbers and returns its documents, due. */
async function addFile(
  ledger: Ledger,
  name: string,
  kind: DocumentKind,
  numbers: string[],
): Promise<DueDocument[]> {
  const { fileId } = await ledger.recordFile(
    fileInput({ path: `/inbox/${kind}/${name}`, name, sha256: name, kind }),
  );
  await ledger.insertDocuments(
    fileId,
    numbers.map((n, i) => numbered(i, n)),
    1_000,
  );
  await ledger.finishReading(fileId, 1_000);
  return (await ledger.claimDue('main', Number.MAX_SAFE_INTEGER, 1_000)).filter(
    (d) => d.fileId === fileId,
  );
}

async function send(ledger: Ledger, doc: DueDocument): Promise<void> {
  expect((await ledger.markSending([doc.id], 2_000)).sending).toEqual([doc.id]);
}

describeBackends('the sticky "may have been delivered" fact', ({ open, reopen }) => {
  it('is set by an attempt whose answer was lost, in the same commit as its outcome, and logged as an event', async () => {
    const ledger = await open();
    try {
      const [doc] = await addFile(ledger, 'a.json', 'invoice', ['SETP/990000001']);
      expect(doc.maybeDelivered).toBe(false);
      expect(await ledger.numberMayHaveBeenDelivered(doc)).toBe(false);
      await send(ledger, doc);
      await ledger.recordOutcomes(
        [{ id: doc.id, state: 'pending', nextAttemptAt: 3_000, maybeDelivered: true }],
        2_500,
      );
      expect((await ledger.getDocument(doc.id))?.maybeDelivered).toBe(true);
      expect(await ledger.numberMayHaveBeenDelivered(doc)).toBe(true);
      const events = (
        await ledger.sql.all<{ type: string }>(
          `SELECT type FROM events WHERE document_id = ? ORDER BY id`,
          [doc.id],
        )
      ).map((e) => e.type);
      expect(events).toContain('maybe-delivered');
    } finally {
      await ledger.close();
    }
  });

  it('is not set by attempts that cannot have reached the service, and a later answer never clears it', async () => {
    const ledger = await open();
    try {
      const [doc] = await addFile(ledger, 'a.json', 'invoice', ['SETP/990000001']);
      await send(ledger, doc);
      await ledger.recordOutcomes(
        [{ id: doc.id, state: 'pending', nextAttemptAt: 3_000, maybeDelivered: false }],
        2_500,
      );
      expect((await ledger.getDocument(doc.id))?.maybeDelivered).toBe(false);
      await send(ledger, doc);
      await ledger.recordOutcomes(
        [{ id: doc.id, state: 'pending', nextAttemptAt: 3_000, maybeDelivered: true }],
        2_600,
      );
      await send(ledger, doc);
      await ledger.recordOutcomes([{ id: doc.id, state: 'failed', maybeDelivered: false }], 2_700);
      expect(await ledger.getDocument(doc.id)).toMatchObject({
        state: 'failed',
        maybeDelivered: true,
      });
    } finally {
      await ledger.close();
    }
  });

  it('survives retry (requeue), resolve --issued, recovery after a crash and a reopen', async () => {
    let ledger = await open();
    const [a, b] = await addFile(ledger, 'a.json', 'invoice', ['SETP/990000001', 'SETP/990000002']);
    await send(ledger, a);
    await ledger.recordOutcomes([{ id: a.id, state: 'failed', maybeDelivered: true }], 2_500);
    expect((await ledger.requeue({ fileName: 'a.json', now: 3_000 })).ids).toEqual([a.id]);
    expect(await ledger.getDocument(a.id)).toMatchObject({
      state: 'pending',
      maybeDelivered: true,
      attempts: 0,
    });
    // resent; the answer is a repeated number after the lost one: in doubt
    await send(ledger, a);
    await ledger.recordOutcomes([{ id: a.id, state: 'in-doubt', doubt: 'repeated-number' }], 3_500);
    expect(await ledger.getDocument(a.id)).toMatchObject({
      state: 'in-doubt',
      doubt: 'repeated-number',
      maybeDelivered: true,
    });
    expect((await ledger.confirmIssued([a.id], 'checked', 4_000)).ids).toEqual([a.id]);
    expect(await ledger.getDocument(a.id)).toMatchObject({
      state: 'accepted',
      doubt: null,
      maybeDelivered: true,
    });
    // a crash while b was sending: recovery resends it, flagged
    await send(ledger, b);
    await ledger.close();
    ledger = await reopen(ledger);
    try {
      expect((await ledger.recoverSending(5_000)).resent).toEqual([b.id]);
      expect(await ledger.getDocument(b.id)).toMatchObject({
        state: 'pending',
        maybeDelivered: true,
      });
      expect((await ledger.getDocument(a.id))?.maybeDelivered).toBe(true);
    } finally {
      await ledger.close();
    }
  });

  it('is asked across documents with the same number: another file, and the kinds that share E1 numbering', async () => {
    const ledger = await open();
    try {
      const [lost] = await addFile(ledger, 'a.json', 'invoice', ['SETP/990000001']);
      await send(ledger, lost);
      await ledger.recordOutcomes([{ id: lost.id, state: 'failed', maybeDelivered: true }], 2_500);
      const [again] = await addFile(ledger, 'b.json', 'invoice', ['SETP/990000001']);
      const [credit] = await addFile(ledger, 'c.json', 'credit-note', ['SETP/990000001']);
      const [support] = await addFile(ledger, 'd.json', 'support-document', ['SETP/990000001']);
      const [other] = await addFile(ledger, 'e.json', 'invoice', ['SETP/990000002']);
      expect(again.maybeDelivered).toBe(false);
      expect(await ledger.numberMayHaveBeenDelivered(again)).toBe(true);
      expect(await ledger.numberMayHaveBeenDelivered(credit)).toBe(true);
      // another number family (E5), another number: nothing of ours can be there
      expect(await ledger.numberMayHaveBeenDelivered(support)).toBe(false);
      expect(await ledger.numberMayHaveBeenDelivered(other)).toBe(false);
    } finally {
      await ledger.close();
    }
  });

  it("retry --in-doubt never re-queues a repeated-number doubt; resolve --not-ours makes it a clash with the operator's word", async () => {
    const ledger = await open();
    try {
      const [doc, unnumbered] = await addFile(ledger, 'a.json', 'invoice', [
        'SETP/990000001',
        'SETP/990000002',
      ]);
      await send(ledger, doc);
      await ledger.recordOutcomes(
        [{ id: doc.id, state: 'in-doubt', doubt: 'repeated-number' }],
        2_500,
      );
      await send(ledger, unnumbered);
      await ledger.recordOutcomes([{ id: unnumbered.id, state: 'in-doubt' }], 2_500);
      expect((await ledger.statusSummary()).inDoubt.map((d) => [d.id, d.doubt])).toEqual([
        [doc.id, 'repeated-number'],
        [unnumbered.id, 'no-answer'],
      ]);
      expect(
        (await ledger.requeue({ fileName: 'a.json', includeInDoubt: true, now: 3_000 })).ids,
      ).toEqual([unnumbered.id]);
      expect(
        (await ledger.recordClash([doc.id, unnumbered.id], 'the portal shows another sale', 4_000))
          .ids,
      ).toEqual([doc.id]);
      const clash = await ledger.getDocument(doc.id);
      expect(clash).toMatchObject({
        state: 'duplicate',
        doubt: null,
        maybeDelivered: false,
        warnings: ['the portal shows another sale'],
      });
      expect(clash?.errors).toEqual([
        {
          code: 'EDOC_SERVICE_NUMBER_CLASH',
          message: expect.stringContaining('SETP990000001') as unknown,
        },
      ]);
    } finally {
      await ledger.close();
    }
  });
});

describe('the sticky "may have been delivered" fact on an older SQLite ledger', () => {
  it("migration 4 carries the fact over from an older ledger's last_outcome; in-doubt documents of then are no-answer", async () => {
    const dir = tempDir();
    const old = new Database(path.join(dir, LEDGER_FILE));
    for (const step of MIGRATIONS.slice(0, 3)) old.exec(step);
    old.pragma('user_version = 3');
    old
      .prepare(
        `INSERT INTO files(id, path, name, report_name, size, sha256, kind, company, state, started_at)
      VALUES (1, '/i/a.json', 'a.json', 'a', 1, 'x', 'invoice', 'main', 'open', 1)`,
      )
      .run();
    const add =
      old.prepare(`INSERT INTO documents(id, file_id, idx, company, kind, source, key, own_number, state, last_outcome, updated_at)
      VALUES (?, 1, ?, 'main', 'invoice', '{}', ?, 1, ?, ?, 1)`);
    add.run(1, 0, 'main/invoice/SETP/1', 'pending', '{"kind":"transient","maybeDelivered":true}');
    add.run(2, 1, 'main/invoice/SETP/2', 'pending', '{"kind":"unknown","reason":"crash"}');
    add.run(3, 2, 'main/invoice/SETP/3', 'failed', '{"kind":"transient"}');
    add.run(4, 3, null, 'in-doubt', null);
    for (const id of [1, 2, 3, 4])
      old.prepare(`INSERT INTO document_bodies(id, raw) VALUES (?, '{}')`).run(id);
    old.close();
    const ledger = Ledger.open(dir);
    try {
      expect(
        await Promise.all(
          [1, 2, 3, 4].map(async (id) => (await ledger.getDocument(id))?.maybeDelivered),
        ),
      ).toEqual([true, true, false, true]);
      expect((await ledger.getDocument(4))?.doubt).toBe('no-answer');
    } finally {
      await ledger.close();
    }
  });
});
