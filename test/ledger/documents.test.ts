import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { makeKey } from '../../src/ledger/rows.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/ledger/migrations.js';
import type { NewDocument } from '../../src/ledger/types.js';
import { describeBackends } from './backends.js';
import { collect, docs, fileInput, noteAt, tempDir } from './helpers.js';

/** Invoice SETP/99000000`n`, stored at `index` of its file. */
function invoiceAt(index: number, n: number): NewDocument {
  return {
    index,
    source: { rows: [index + 2] },
    number: `SETP/99000000${n}`,
    ownNumber: true,
    raw: '',
  };
}

async function openWithFile(
  open: () => Promise<Ledger>,
  n = 3,
  over: Parameters<typeof docs>[1] = undefined,
) {
  const ledger = await open();
  const { fileId } = await ledger.recordFile(fileInput());
  await ledger.insertDocuments(fileId, docs(n, over), 1_000);
  await ledger.finishReading(fileId, 1_000);
  return { ledger, fileId };
}

describe('ledger schema', () => {
  it('migrates once and reopening is a no-op (user_version = number of steps)', async () => {
    const dir = tempDir();
    const first = Ledger.open(dir);
    expect(first.notes).toContain(`ledger schema migrated from version 0 to ${SCHEMA_VERSION}`);
    expect(first.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(first.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(first.db.pragma('synchronous', { simple: true })).toBe(2);
    await first.close();
    const again = Ledger.open(dir);
    expect(again.notes).toEqual([]);
    await again.close();
  });

  it('step 2 moves each request and source text out of a version-1 documents table, nothing lost', async () => {
    const dir = tempDir();
    const v1 = new Database(path.join(dir, 'ledger.sqlite'));
    v1.exec(MIGRATIONS[0] as string);
    v1.pragma('user_version = 1');
    v1.prepare(
      `INSERT INTO files(id, path, name, report_name, size, sha256, kind, company, state, started_at)
      VALUES (1, '/inbox/invoice/a.jsonl', 'a.jsonl', 'a', 10, 'aaa', 'invoice', 'main', 'open', 1000)`,
    ).run();
    const ins =
      v1.prepare(`INSERT INTO documents(file_id, idx, company, kind, source, key, own_number, state, attempts,
      next_attempt_at, request, raw, updated_at) VALUES (1, ?, 'main', 'invoice', '{"lines":[1]}', ?, 1, ?, ?, ?, ?, ?, 1000)`);
    ins.run(0, 'main/invoice/SETP/1', 'accepted', 1, null, '{"Number":"1"}', 'raw 0; "quoted"');
    ins.run(1, 'main/invoice/SETP/2', 'pending', 0, 1000, '{"Number":"2"}', 'raw 1');
    v1.prepare(
      `INSERT INTO file_counts(file_id, state, n) VALUES (1, 'accepted', 1), (1, 'pending', 1)`,
    ).run();
    v1.close();

    const ledger = Ledger.open(dir);
    expect(ledger.notes).toContain(`ledger schema migrated from version 1 to ${SCHEMA_VERSION}`);
    const columns = (
      ledger.db.prepare('PRAGMA table_info(documents)').all() as { name: string }[]
    ).map((c) => c.name);
    expect(columns).not.toContain('request');
    expect(columns).not.toContain('raw');
    expect(
      (await collect(ledger.iterateFileDocuments(1))).map((d) => [d.index, d.state, d.raw]),
    ).toEqual([
      [0, 'accepted', 'raw 0; "quoted"'],
      [1, 'pending', 'raw 1'],
    ]);
    const due = await ledger.claimDue('main', 2_000, 10);
    expect(due.map((d) => [d.index, d.request])).toEqual([[1, { Number: '2' }]]);
    await ledger.close();
  });

  it('step 12 brings a version-11 ledger what a file refused whole keeps, its files untouched', async () => {
    const dir = tempDir();
    const v11 = new Database(path.join(dir, 'ledger.sqlite'));
    for (const step of MIGRATIONS.slice(0, 11)) v11.exec(step);
    v11.pragma('user_version = 11');
    v11
      .prepare(
        `INSERT INTO files(id, path, name, report_name, size, sha256, kind, company, state, started_at)
        VALUES (1, '/inbox/invoice/ventas.csv', 'ventas.csv', 'ventas', 1, 'aaa', 'invoice', 'main', 'failed-read', 1000)`,
      )
      .run();
    v11.close();
    const ledger = Ledger.open(dir);
    expect(ledger.notes).toContain(`ledger schema migrated from version 11 to ${SCHEMA_VERSION}`);
    expect(await ledger.getFile(1)).toMatchObject({ name: 'ventas.csv', state: 'failed-read' });
    // a file refused whole from now on keeps what its documents were
    const b = await ledger.recordFile(fileInput({ sha256: 'bbb' }));
    await ledger.insertDocuments(b.fileId, docs(2), 2_000);
    await ledger.refuseWhole(b.fileId, { code: 'EDOC_MAP_FORMAT_MISMATCH', message: '…' }, 2_000);
    expect(await ledger.sql.all('SELECT file_id, idx FROM refused_whole_documents', [])).toEqual([
      { file_id: b.fileId, idx: 0 },
      { file_id: b.fileId, idx: 1 },
    ]);
    await ledger.close();
  });

  it('keeps statement journals and sorts in memory, not in a temporary file per batch commit', async () => {
    // a multi-row statement after another write in one transaction (markSending after recordOutcomes in
    // commitSubmissions) needs a statement journal: on disk that was a new /var/tmp file per commit
    const ledger = Ledger.open(tempDir());
    expect(ledger.db.pragma('temp_store', { simple: true })).toBe(2); // MEMORY
    await ledger.close();
  });

  it('refuses a ledger written by a newer program', async () => {
    const dir = tempDir();
    const l = Ledger.open(dir);
    l.db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    await l.close();
    expect(() => Ledger.open(dir)).toThrow(
      expect.objectContaining({ code: 'EDOC_LEDGER_MIGRATION' }),
    );
  });
});

describeBackends('the ledger', ({ open, reopen }) => {
  describe('files: the same content is not submitted twice', () => {
    it('recognises the same sha256 for the same company and kind as duplicate content', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput());
      await ledger.markArchived(a.fileId, '/outbox/invoice/archive/a.json', 2_000);
      const b = await ledger.recordFile(
        fileInput({ path: '/inbox/invoice/b.json', name: 'b.json', now: 3_000 }),
      );
      expect(b).toMatchObject({ outcome: 'duplicate', state: 'done', duplicateOfFileId: a.fileId });
      expect((await ledger.getFile(b.fileId))?.error?.code).toBe('EDOC_LEDGER_DUPLICATE_FILE');
      // another kind or company is other content
      expect((await ledger.recordFile(fileInput({ kind: 'credit-note' }))).outcome).toBe('new');
      expect((await ledger.recordFile(fileInput({ company: 'other' }))).outcome).toBe('new');
      await ledger.close();
    });

    it('resumes a file left unfinished at the same path instead of calling it a duplicate', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput());
      await ledger.insertDocuments(a.fileId, docs(2), 1_000);
      const again = await ledger.recordFile(fileInput({ now: 5_000 }));
      expect(again).toEqual({ fileId: a.fileId, outcome: 'resumed', state: 'reading' });
      // re-reading inserts only what is missing; each new row gets its own body, a stored one keeps its own
      expect(
        (
          await ledger.insertDocuments(
            a.fileId,
            docs(4, (i) => ({ raw: `{"Number":${i},"again":1}` })),
            5_000,
          )
        ).inserted,
      ).toBe(2);
      expect((await ledger.fileProgress(a.fileId)).total).toBe(4);
      expect(
        await ledger.sql.all(
          `SELECT d.idx, b.raw FROM documents d JOIN document_bodies b ON b.id = d.id WHERE d.file_id = ?
      ORDER BY d.idx`,
          [a.fileId],
        ),
      ).toEqual([
        { idx: 0, raw: '{"Number":0}' },
        { idx: 1, raw: '{"Number":1}' },
        { idx: 2, raw: '{"Number":2,"again":1}' },
        { idx: 3, raw: '{"Number":3,"again":1}' },
      ]);
      await ledger.close();
    });

    it('does not count a file that failed to read as earlier content', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput());
      await ledger.failRead(a.fileId, { code: 'EDOC_READ_CHANGED', message: 'changed' }, 2_000);
      // still in the inbox after a crash: settle that one first (report, archive)
      expect(await ledger.recordFile(fileInput({ now: 2_500 }))).toEqual({
        fileId: a.fileId,
        outcome: 'resumed',
        state: 'failed-read',
      });
      await ledger.markArchived(a.fileId, '/outbox/invoice/archive/a.json', 2_600);
      expect((await ledger.recordFile(fileInput({ now: 3_000 }))).outcome).toBe('new');
      await ledger.close();
    });

    it('refuses a file whole while it is read: its stored documents are removed, none released', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput());
      await ledger.insertDocuments(a.fileId, docs(3), 1_000);
      const error = { code: 'EDOC_MAP_FORMAT_MISMATCH' as const, message: 'a.json row 3: …' };
      expect(await ledger.refuseWhole(a.fileId, error, 2_000)).toBe(3);
      expect(await ledger.getFile(a.fileId)).toMatchObject({ state: 'failed-read', error });
      expect(await ledger.fileProgress(a.fileId)).toMatchObject({ total: 0, final: true });
      expect(await ledger.sql.all('SELECT count(*) AS n FROM document_bodies', [])).toEqual([
        { n: 0 },
      ]);
      // only from `reading`: a second call changes nothing
      expect(await ledger.refuseWhole(a.fileId, error, 2_500)).toBe(0);
      await ledger.close();
    });

    it('gives a second unfinished file with the same name its own report name', async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput({ name: 'ventas.csv' }));
      const b = await ledger.recordFile(
        fileInput({ name: 'ventas.csv', path: '/elsewhere/ventas.csv', sha256: 'bbb' }),
      );
      expect((await ledger.getFile(a.fileId))?.reportName).toBe('ventas');
      expect((await ledger.getFile(b.fileId))?.reportName).toBe('ventas (2)');
      await ledger.close();
    });

    it('keeps the report of NAME.csv when NAME.json comes later, and gives a daily name its stem back', async () => {
      const ledger = await open();
      const finish = async (fileId: number): Promise<void> => {
        await ledger.finishReading(fileId);
        expect(await ledger.finishFile(fileId, 5_000)).toBe(true);
        await ledger.markReported(fileId, 'final');
      };
      const csv = await ledger.recordFile(
        fileInput({ name: 'ventas.csv', path: '/inbox/invoice/ventas.csv', sha256: 'c1' }),
      );
      await finish(csv.fileId);
      const json = await ledger.recordFile(
        fileInput({ name: 'ventas.json', path: '/inbox/invoice/ventas.json', sha256: 'j1' }),
      );
      await finish(json.fileId);
      const csvAgain = await ledger.recordFile(
        fileInput({ name: 'ventas.csv', path: '/inbox/invoice/ventas.csv', sha256: 'c2' }),
      );
      const jsonAgain = await ledger.recordFile(
        fileInput({ name: 'ventas.json', path: '/inbox/invoice/ventas.json', sha256: 'j2' }),
      );
      expect(
        await Promise.all(
          [csv, json, csvAgain, jsonAgain].map(
            async (r) => (await ledger.getFile(r.fileId))?.reportName,
          ),
        ),
      ).toEqual(['ventas', 'ventas (2)', 'ventas', 'ventas (2)']);
      await ledger.close();
    });

    it("does not give a daily name back while the earlier file's final report is not written", async () => {
      const ledger = await open();
      const a = await ledger.recordFile(fileInput({ name: 'ventas.csv', sha256: 'a1' }));
      await ledger.finishReading(a.fileId);
      await ledger.finishFile(a.fileId, 5_000);
      const b = await ledger.recordFile(fileInput({ name: 'ventas.csv', sha256: 'b1' }));
      expect((await ledger.getFile(b.fileId))?.reportName).toBe('ventas (2)');
      await ledger.close();
    });

    it("gives a duplicate drop a report name no file's report holds, and names the earlier file and its report", async () => {
      const ledger = await open();
      const a = await ledger.recordFile(
        fileInput({
          name: 'ventas.csv',
          path: '/inbox/invoice/ventas.csv',
          now: Date.UTC(2026, 10, 20),
        }),
      );
      await ledger.finishReading(a.fileId);
      await ledger.finishFile(a.fileId, 5_000);
      await ledger.markReported(a.fileId, 'final');
      await ledger.markArchived(a.fileId, '/outbox/invoice/archive/ventas.csv');
      const other = await ledger.recordFile(
        fileInput({
          name: 'ventas (2).csv',
          path: '/inbox/invoice/ventas (2).csv',
          sha256: 'other',
        }),
      );
      const dup = await ledger.recordFile(
        fileInput({ name: 'ventas.csv', path: '/inbox/invoice/ventas.csv', now: 9_000 }),
      );
      expect(dup.outcome).toBe('duplicate');
      expect((await ledger.getFile(other.fileId))?.reportName).toBe('ventas (2)');
      const row = await ledger.getFile(dup.fileId);
      expect(row?.reportName).toBe('ventas (3)');
      expect(row?.error?.message).toBe(
        'The same content was received before as ventas.csv (taken 2026-11-20T00:00:00.000Z; ' +
          'its report: ventas.result.json); it is not sent again.',
      );
      // moved aside later: a new duplicate names the report where it is now
      await ledger.relocateReport(a.fileId, '/outbox/invoice/archive', 'ventas.csv');
      const dup2 = await ledger.recordFile(
        fileInput({ name: 'copia.csv', path: '/inbox/invoice/copia.csv', now: 9_500 }),
      );
      expect((await ledger.getFile(dup2.fileId))?.error?.message).toContain(
        'its report: archive/ventas.csv.result.json',
      );
      expect(await ledger.reportHolders(dup2.fileId)).toEqual([]);
      await ledger.close();
    });
  });

  describe('documents', () => {
    it('holds a note naming a document the mapping refused (no key, its ERP key the number), in a later batch or its own', async () => {
      const ledger = await open();
      const refused = (index: number, erpKey: string) => ({
        index,
        source: { rows: [index + 2] },
        number: null,
        ownNumber: false,
        raw: '',
        erpKey,
        problems: [{ code: 'EDOC_MAP_VAT_RATE', field: 'iva', message: 'VAT rate 0.19 %' }],
      });
      const note = (index: number, n: string, written: string) => ({
        index,
        source: { rows: [index + 2] },
        number: `NC${n}`,
        ownNumber: true,
        raw: '',
        kind: 'credit-note' as const,
        references: [written],
      });
      const held = (written: string, file: string) => ({
        index: expect.any(Number) as number,
        notIssued: `Not sent: it references ${written}, which the ledger holds as invalid (${file}): it was never issued, so there is nothing for this note to correct. Issue the corrected document itself, or reference the document that was issued.`,
      });
      // the prefix and number in two key columns, and the number in one
      const a = await ledger.recordFile(
        fileInput({ path: '/inbox/invoice/ventas.csv', name: 'ventas.csv', sha256: 'r1' }),
      );
      await ledger.insertDocuments(
        a.fileId,
        [refused(0, '["0","SETP","990000001"]'), refused(1, '["0","SETP990000002"]')],
        1_000,
      );
      const b = await ledger.recordFile(
        fileInput({ path: '/inbox/invoice/notas.csv', name: 'notas.csv', sha256: 'r2' }),
      );
      const later = await ledger.insertDocuments(
        b.fileId,
        [
          note(0, '1', 'SETP990000001'),
          note(1, '2', 'SETP990000002'),
          note(2, '3', 'SETP990000003'),
        ],
        2_000,
      );
      expect(later.byReference).toEqual([
        held('SETP990000001', 'ventas.csv'),
        held('SETP990000002', 'ventas.csv'),
        { index: 2, unknown: ['SETP990000003'] },
      ]);
      // in one file: the refused invoice first, then its note
      const c = await ledger.recordFile(
        fileInput({ path: '/inbox/invoice/mixta.csv', name: 'mixta.csv', sha256: 'r3' }),
      );
      const same = await ledger.insertDocuments(
        c.fileId,
        [refused(0, '["0","SETP","990000005"]'), note(1, '5', 'SETP990000005')],
        3_000,
      );
      expect(same.byReference).toEqual([held('SETP990000005', 'mixta.csv')]);
      await ledger.close();
    });

    it('holds a note naming a document of a file refused whole (by key or ERP key); its corrected re-export lets the note go', async () => {
      const ledger = await open();
      const invoice = (index: number) => invoiceAt(index, index);
      const held = (index: number, written: string) => ({
        index,
        notIssued: `Not sent: it references ${written}, which was in ventas.csv, a file refused whole (EDOC_MAP_FORMAT_MISMATCH): it was never issued, so there is nothing for this note to correct. Drop the corrected export first, then this note again.`,
      });
      // ventas.csv: two invoices and one the mapping refused (no key: its ERP key is its number), then a
      // cell in the other convention refuses the file whole
      const a = await ledger.recordFile(
        fileInput({ path: '/inbox/invoice/ventas.csv', name: 'ventas.csv', sha256: 'w1' }),
      );
      await ledger.insertDocuments(
        a.fileId,
        [
          invoice(1),
          invoice(2),
          {
            index: 3,
            source: { rows: [5] },
            number: null,
            ownNumber: false,
            raw: '',
            erpKey: '["0","SETP","990000003"]',
            problems: [{ code: 'EDOC_MAP_VAT_RATE', field: 'iva', message: 'VAT rate 0.19 %' }],
          },
        ],
        1_000,
      );
      const error = { code: 'EDOC_MAP_FORMAT_MISMATCH' as const, message: 'ventas.csv row 6: …' };
      expect(await ledger.refuseWhole(a.fileId, error, 1_500)).toBe(3);
      const b = await ledger.recordFile(
        fileInput({ path: '/inbox/credit-note/nc.csv', name: 'nc.csv', sha256: 'w2' }),
      );
      const notes = await ledger.insertDocuments(
        b.fileId,
        [noteAt(0, 'SETP990000001'), noteAt(1, 'SETP990000003'), noteAt(2, 'SETP990000004')],
        2_000,
      );
      expect(notes.byReference).toEqual([
        held(0, 'SETP990000001'),
        held(1, 'SETP990000003'),
        { index: 2, unknown: ['SETP990000004'] },
      ]);
      expect((await ledger.fileProgress(b.fileId)).counts).toMatchObject({
        invalid: 2,
        pending: 1,
      });
      // the corrected export: the same numbers, now read right, are issued as any others
      const c = await ledger.recordFile(
        fileInput({ path: '/inbox/invoice/ventas.csv', name: 'ventas.csv', sha256: 'w3' }),
      );
      expect(await ledger.insertDocuments(c.fileId, [invoice(1), invoice(2)], 3_000)).toEqual({
        inserted: 2,
        invalid: 0,
        duplicate: 0,
      });
      await ledger.finishReading(c.fileId, 3_000);
      const due = await ledger.claimDue('main', 3_000, 10);
      expect(due.map((d) => d.key)).toEqual([
        'main/invoice/SETP/990000001',
        'main/invoice/SETP/990000002',
      ]);
      await ledger.markSending([due[0].id], 3_100);
      await ledger.recordOutcome(due[0].id, { state: 'accepted', resultCode: '100' }, 3_200);
      // ... and a note naming one of them goes; one naming the refused invoice never exported again is still held
      const d = await ledger.recordFile(
        fileInput({ path: '/inbox/credit-note/nc2.csv', name: 'nc2.csv', sha256: 'w4' }),
      );
      const later = await ledger.insertDocuments(
        d.fileId,
        [noteAt(0, 'SETP990000001'), noteAt(1, 'SETP990000003')],
        4_000,
      );
      expect(later.byReference).toEqual([held(1, 'SETP990000003')]);
      await ledger.close();
    });

    it('holds a note naming an invoice held back in a file still being read until that read ends, then acts on its end', async () => {
      const ledger = await open();
      const invoice = (n: number) => invoiceAt(0, n);
      const note = (index: number, n: number) => noteAt(index, `SETP99000000${n}`);
      const reading = async (name: string, n?: number) => {
        const f = await ledger.recordFile(
          fileInput({ path: `/inbox/x/${name}`, name, sha256: name }),
        );
        if (n !== undefined) await ledger.insertDocuments(f.fileId, [invoice(n)], 1_000);
        return f.fileId;
      };
      const states = async (fileId: number) =>
        (
          await ledger.sql.all<{ state: string; due: number | null; problems: string | null }>(
            'SELECT state, next_attempt_at AS due, problems FROM documents WHERE file_id = ? ORDER BY idx',
            [fileId],
          )
        ).map((r) => [
          r.state,
          r.due === null ? null : Number(r.due),
          r.problems === null ? null : (JSON.parse(r.problems) as { message: string }[])[0].message,
        ]);
      // three invoices, each in a file still being read
      const a1 = await reading('a1.csv', 1);
      const a2 = await reading('a2.csv', 2);
      const a3 = await reading('a3.csv', 3);
      const b = await reading('nc.csv');
      const notes = await ledger.insertDocuments(b, [note(0, 1), note(1, 2), note(2, 3)], 2_000);
      expect(notes.byReference).toEqual([
        { index: 0, waitsFor: 'a1.csv' },
        { index: 1, waitsFor: 'a2.csv' },
        { index: 2, waitsFor: 'a3.csv' },
      ]);
      // the notes' file read whole: they stay held back
      await ledger.finishReading(b, 2_500);
      expect(await states(b)).toEqual([
        ['pending', null, null],
        ['pending', null, null],
        ['pending', null, null],
      ]);
      expect(await ledger.takeSettledNotes(a1)).toEqual([]);
      // a1 read whole: its invoice and the note naming it are due
      await ledger.finishReading(a1, 3_000);
      expect((await ledger.claimDue('main', 3_000, 10)).map((d) => d.key)).toEqual([
        'main/invoice/SETP/990000001',
        'main/credit-note/NC/1',
      ]);
      expect(await ledger.takeSettledNotes(a1)).toEqual([b]);
      expect(await ledger.takeSettledNotes(a1)).toEqual([]);
      // a2 failed to read (its invoice held invalid), a3 refused whole: the notes naming them are held
      await ledger.failRead(a2, { code: 'EDOC_READ_CHANGED', message: 'changed' }, 4_000);
      await ledger.refuseWhole(a3, { code: 'EDOC_MAP_FORMAT_MISMATCH', message: '…' }, 4_000);
      expect(await states(b)).toEqual([
        ['pending', 3_000, null],
        [
          'invalid',
          null,
          'Not sent: it references SETP990000002, which the ledger holds as invalid (a2.csv): it was never issued, so there is nothing for this note to correct. Issue the corrected document itself, or reference the document that was issued.',
        ],
        [
          'invalid',
          null,
          'Not sent: it references SETP990000003, which was in a3.csv, a file refused whole (EDOC_MAP_FORMAT_MISMATCH): it was never issued, so there is nothing for this note to correct. Drop the corrected export first, then this note again.',
        ],
      ]);
      expect((await ledger.fileProgress(b)).counts).toMatchObject({ pending: 1, invalid: 2 });
      expect(await ledger.takeSettledNotes(a2)).toEqual([b]);
      expect(await ledger.takeSettledNotes(a3)).toEqual([b]);
      // the note's own file still read when the invoice's read ends: released with its own file
      const a4 = await reading('a4.csv', 4);
      const c = await reading('nc2.csv');
      await ledger.insertDocuments(c, [note(0, 4)], 5_000);
      await ledger.finishReading(a4, 5_500);
      expect(await states(c)).toEqual([['pending', null, null]]);
      await ledger.finishReading(c, 6_000);
      expect(await states(c)).toEqual([['pending', 6_000, null]]);
      // the invoice's file dropped unread (it changed while read): the note goes as an unknown reference, and
      // its report carries the warning as for a note taken before its invoice's file
      const a6 = await reading('a6.csv', 6);
      const e = await reading('nc3.csv');
      await ledger.insertDocuments(e, [note(0, 6)], 8_000);
      await ledger.finishReading(e, 8_100);
      await ledger.dropIntake(a6, { reason: 'changed while it was read' }, 8_200);
      expect(await states(e)).toEqual([['pending', 8_200, null]]);
      const [warned] = await ledger.sql.all<{ warnings: string | null }>(
        'SELECT warnings FROM documents WHERE file_id = ?',
        [e],
      );
      expect(JSON.parse(warned.warnings ?? 'null')).toEqual([
        'EDOC_LEDGER_REFERENCE_UNKNOWN: it references SETP990000006, which the bridge did not know when it took ' +
          'this note (the invoice may have been issued before the bridge was installed); the note is sent as it is. ' +
          "If the invoice's file was dropped after this note's, check the order of the exports: the invoice should " +
          'reach the inbox before the notes that correct it.',
      ]);
      // an invoice held back in the note's own file: the note shares its file's fate, no wait
      const d = await reading('mixta.csv', 5);
      const own = await ledger.insertDocuments(d, [note(1, 5)], 7_000);
      expect(own.byReference).toBeUndefined();
      await ledger.close();
    });

    it('stores documents with problems as invalid and already accepted keys as duplicate', async () => {
      const { ledger, fileId } = await openWithFile(open, 2);
      const [d0] = await ledger.claimDue('main', 1_000, 1);
      await ledger.markSending([d0.id], 1_100);
      await ledger.recordOutcome(
        d0.id,
        { state: 'accepted', resultCode: '100', httpStatus: 200 },
        1_200,
      );
      const key = makeKey('main', 'invoice', 'SETP990000000');
      expect(await ledger.acceptedKey(key)).toEqual({ documentId: d0.id, fileId });
      expect(
        await ledger.acceptedKey(makeKey('main', 'credit-note', 'SETP990000000')),
      ).toBeUndefined();

      const f2 = await ledger.recordFile(
        fileInput({ sha256: 'ccc', path: '/inbox/invoice/c.json', name: 'c.json' }),
      );
      const r = await ledger.insertDocuments(
        f2.fileId,
        [
          { index: 0, source: { lines: [1] }, number: 'SETP990000000', ownNumber: true, raw: '{}' },
          {
            index: 1,
            source: { lines: [2] },
            number: null,
            ownNumber: false,
            raw: '{}',
            problems: [{ code: 'EDOC_VALIDATE_SCHEMA', field: 'Total', message: 'required' }],
          },
          { index: 2, source: { lines: [3] }, number: null, ownNumber: false, raw: '{}' },
        ],
        2_000,
      );
      // the duplicate names the file its number was accepted in (the intake logs it from this, without a query per document)
      expect(r).toEqual({
        inserted: 3,
        invalid: 1,
        duplicate: 1,
        byAcceptedKey: [{ index: 0, fileId }],
      });
      expect((await ledger.fileProgress(f2.fileId)).counts).toMatchObject({
        duplicate: 1,
        invalid: 1,
        pending: 1,
      });
      // the duplicate's event names that very document, and every stored row has its body
      const stored = await ledger.sql.all<{ id: number; idx: number }>(
        `SELECT d.id, d.idx FROM documents d JOIN document_bodies b ON b.id = d.id
      WHERE d.file_id = ? ORDER BY d.idx`,
        [f2.fileId],
      );
      expect(stored.map((d) => d.idx)).toEqual([0, 1, 2]);
      expect(
        await ledger.sql.all('SELECT document_id FROM events WHERE file_id = ? AND type = ?', [
          f2.fileId,
          'duplicate-key',
        ]),
      ).toEqual([{ document_id: stored[0].id }]);
      await ledger.close();
    });

    it('claims due documents in due order then file order, per company, without changing them', async () => {
      const { ledger } = await openWithFile(open, 5);
      const due = await ledger.claimDue('main', 1_000, 3);
      expect(due.map((d) => d.index)).toEqual([0, 1, 2]);
      expect((await ledger.claimDue('main', 1_000, 3)).map((d) => d.index)).toEqual([0, 1, 2]);
      expect(await ledger.claimDue('main', 999, 3)).toEqual([]);
      expect(await ledger.claimDue('other', 1_000, 3)).toEqual([]);
      expect(
        (await ledger.claimDue('main', 1_000, 2, new Set([due[0].id]))).map((d) => d.index),
      ).toEqual([1, 2]);
      await ledger.close();
    });

    it('stores the text once when the request is JSON.parse(raw), and reads the request back from it', async () => {
      const ledger = await open();
      const { fileId } = await ledger.recordFile(fileInput());
      const raw =
        '{"SeriePrefix":"SETP", "SerieNumber":"990000001","Lines":[{"Description":"ñandú"}]}';
      await ledger.insertDocuments(
        fileId,
        [
          {
            index: 0,
            source: { lines: [1] },
            number: 'SETP/990000001',
            ownNumber: true,
            request: JSON.parse(raw),
            raw,
            requestFromRaw: true,
          },
          {
            index: 1,
            source: { rows: [2, 3] },
            number: 'SETP/990000002',
            ownNumber: true,
            request: { SerieNumber: '990000002' },
            raw: 'a;b\r\n',
          },
        ],
        1_000,
      );
      await ledger.finishReading(fileId, 1_000);
      const bodies = await ledger.sql.all(
        'SELECT request, request_is_raw AS "fromRaw" FROM document_bodies ORDER BY id',
      );
      expect(bodies).toEqual([
        { request: null, fromRaw: 1 },
        { request: '{"SerieNumber":"990000002"}', fromRaw: 0 },
      ]);
      const due = await ledger.claimDue('main', 2_000, 10);
      expect(due.map((d) => d.request)).toEqual([JSON.parse(raw), { SerieNumber: '990000002' }]);
      await ledger.markSending(
        due.map((d) => d.id),
        2_000,
      );
      expect((await ledger.sendingAtStart()).map((d) => d.request)).toEqual([
        JSON.parse(raw),
        { SerieNumber: '990000002' },
      ]);
      expect((await collect(ledger.iterateFileDocuments(fileId))).map((d) => d.raw)).toEqual([
        raw,
        'a;b\r\n',
      ]);
      await ledger.close();
    });

    it('hands out the stored text to send as is only where it is exactly JSON.stringify of the request', async () => {
      const ledger = await open();
      const { fileId } = await ledger.recordFile(fileInput());
      const exact = '{"SeriePrefix":"SETP","SerieNumber":"990000001","Total":1.5}';
      const blanks = '{"SeriePrefix":"SETP", "SerieNumber":"990000002","Total":1.50}';
      await ledger.insertDocuments(
        fileId,
        [
          {
            index: 0,
            source: { lines: [1] },
            number: 'SETP/990000001',
            ownNumber: true,
            raw: exact,
            requestFromRaw: true,
            rawIsRequestText: true,
          },
          {
            index: 1,
            source: { lines: [2] },
            number: 'SETP/990000002',
            ownNumber: true,
            raw: blanks,
            requestFromRaw: true,
            rawIsRequestText: false,
          },
          {
            index: 2,
            source: { rows: [2] },
            number: 'SETP/990000003',
            ownNumber: true,
            request: { SerieNumber: '990000003' },
            raw: 'a;b',
          },
        ],
        1_000,
      );
      await ledger.finishReading(fileId, 1_000);
      const due = await ledger.claimDue('main', 2_000, 10);
      expect(due.map((d) => d.requestText)).toEqual([
        exact,
        undefined,
        '{"SerieNumber":"990000003"}',
      ]);
      // the request is still there for whatever reads it (parsed when first read)
      expect(due.map((d) => d.request)).toEqual([
        JSON.parse(exact),
        JSON.parse(blanks),
        { SerieNumber: '990000003' },
      ]);
      await ledger.markSending(
        due.map((d) => d.id),
        2_000,
      );
      expect((await ledger.sendingAtStart()).map((d) => d.requestText)).toEqual([
        exact,
        undefined,
        '{"SerieNumber":"990000003"}',
      ]);
      await ledger.close();
    });

    it('markSending increments attempts in one commit; outcomes apply only to sending documents', async () => {
      const { ledger, fileId } = await openWithFile(open, 3);
      const ids = (await ledger.claimDue('main', 1_000, 3)).map((d) => d.id);
      const marked = await ledger.markSending(ids, 1_500);
      expect(marked).toEqual({ sending: ids, duplicate: [], skipped: [], deferred: [] });
      expect(await ledger.getDocument(ids[0])).toMatchObject({ state: 'sending', attempts: 1 });
      expect((await ledger.markSending(ids, 1_600)).skipped).toEqual(ids);
      expect(await ledger.claimDue('main', 10_000, 10)).toEqual([]);

      const res = await ledger.recordOutcomes(
        [
          {
            id: ids[0],
            state: 'accepted',
            resultCode: '100',
            httpStatus: 200,
            response: { ResultCode: '100' },
          },
          {
            id: ids[1],
            state: 'rejected',
            resultCode: '99',
            httpStatus: 200,
            errors: [{ message: 'Bad customer' }],
          },
          {
            id: ids[2],
            state: 'pending',
            nextAttemptAt: 5_000,
            httpStatus: 503,
            outcome: { kind: 'transient' },
          },
        ],
        2_000,
      );
      expect(res).toEqual({ applied: ids, fileIds: [fileId] });
      // a late answer for a document no longer sending changes nothing
      expect(await ledger.recordOutcome(ids[0], { state: 'failed' }, 2_100)).toBe(false);
      expect((await ledger.getDocument(ids[1]))?.errors).toEqual([{ message: 'Bad customer' }]);

      // the retry waits for its backoff time
      expect(await ledger.claimDue('main', 4_999, 10)).toEqual([]);
      expect(await ledger.nextDueAt('main')).toBe(5_000);
      const again = await ledger.claimDue('main', 5_000, 10);
      expect(again.map((d) => [d.id, d.attempts])).toEqual([[ids[2], 1]]);
      await ledger.markSending([ids[2]], 5_000);
      expect((await ledger.getDocument(ids[2]))?.attempts).toBe(2);
      expect(await ledger.scheduleRetry(ids[2], 9_000, { httpStatus: 429 }, 5_100)).toBe(true);
      expect(await ledger.getDocument(ids[2])).toMatchObject({
        state: 'pending',
        nextAttemptAt: 9_000,
        httpStatus: 429,
      });
      expect(await ledger.fileProgress(fileId)).toMatchObject({ total: 3, final: false });
      await ledger.close();
    });

    it('a retry released after its key was accepted elsewhere becomes duplicate instead of being sent', async () => {
      const { ledger } = await openWithFile(open, 1);
      const f2 = await ledger.recordFile(
        fileInput({ sha256: 'x2', path: '/inbox/invoice/x2.json', name: 'x2.json' }),
      );
      await ledger.insertDocuments(f2.fileId, docs(1), 1_000);
      await ledger.finishReading(f2.fileId, 1_000);
      const [a, b] = await ledger.claimDue('main', 1_000, 2);
      await ledger.markSending([a.id], 1_000);
      await ledger.recordOutcome(a.id, { state: 'accepted' }, 1_100);
      expect(await ledger.markSending([b.id], 1_200)).toEqual({
        sending: [],
        duplicate: [b.id],
        skipped: [],
        deferred: [],
      });
      await ledger.close();
    });

    it('holds back a document while another with the same key is being sent, then settles it as duplicate', async () => {
      const { ledger } = await openWithFile(open, 1);
      const f2 = await ledger.recordFile(
        fileInput({ sha256: 'x3', path: '/inbox/invoice/x3.json', name: 'x3.json' }),
      );
      await ledger.insertDocuments(f2.fileId, docs(1), 1_000);
      await ledger.finishReading(f2.fileId, 1_000);
      const [a, b] = await ledger.claimDue('main', 1_000, 2);
      expect(await ledger.markSending([a.id, b.id], 1_000)).toEqual({
        sending: [a.id],
        duplicate: [],
        skipped: [],
        deferred: [b.id],
      });
      expect(await ledger.claimDue('main', 1_000, 5)).toEqual([]);
      expect(await ledger.nextDueAt('main')).toBe(3_000);
      await ledger.recordOutcome(a.id, { state: 'accepted' }, 1_500);
      expect((await ledger.markSending([b.id], 3_000)).duplicate).toEqual([b.id]);
      await ledger.close();
    });

    it('fileProgress is final once every document is final', async () => {
      const { ledger, fileId } = await openWithFile(open, 2);
      const ids = (await ledger.claimDue('main', 1_000, 2)).map((d) => d.id);
      await ledger.markSending(ids, 1_000);
      await ledger.recordOutcome(ids[0], { state: 'accepted' });
      expect((await ledger.fileProgress(fileId)).final).toBe(false);
      await ledger.recordOutcome(ids[1], { state: 'failed' });
      expect(await ledger.fileProgress(fileId)).toMatchObject({
        total: 2,
        final: true,
        counts: { accepted: 1, failed: 1, pending: 0, sending: 0 },
      });
      expect(await ledger.finishFile(fileId, 3_000)).toBe(true);
      expect(await ledger.openFiles()).toEqual([]);
      expect((await ledger.filesToSettle()).map((f) => f.id)).toEqual([fileId]);
      await ledger.close();
    });

    it('requeue releases failed documents by file name or key, in-doubt ones only when allowed', async () => {
      const { ledger, fileId } = await openWithFile(open, 3, (i) => ({
        number: i === 2 ? null : `N${i}`,
        ownNumber: i !== 2,
      }));
      const ids = (await ledger.claimDue('main', 1_000, 3)).map((d) => d.id);
      await ledger.markSending(ids, 1_000);
      await ledger.recordOutcome(ids[0], { state: 'failed', errors: [{ message: 'timeout' }] });
      await ledger.recordOutcome(ids[1], { state: 'failed' });
      await ledger.setInDoubt([ids[2]], 'no answer', 2_000);
      await ledger.finishFile(fileId, 2_000);

      expect((await ledger.requeue({ key: 'N0', now: 3_000 })).ids).toEqual([ids[0]]);
      expect((await ledger.getFile(fileId))?.state).toBe('open');
      expect(await ledger.getDocument(ids[0])).toMatchObject({
        state: 'pending',
        attempts: 0,
        nextAttemptAt: 3_000,
      });
      expect((await ledger.requeue({ key: 'main/invoice/N1', now: 3_000 })).ids).toEqual([ids[1]]);
      expect((await ledger.requeue({ fileName: 'a.json', now: 3_000 })).ids).toEqual([]);
      expect(
        (await ledger.requeue({ fileName: 'a.json', includeInDoubt: true, now: 3_000 })).ids,
      ).toEqual([ids[2]]);
      await ledger.close();
    });

    it('status summary: per company and kind, files in progress, in-doubt and failed with last error, last pull', async () => {
      const { ledger } = await openWithFile(open, 3);
      const ids = (await ledger.claimDue('main', 1_000, 3)).map((d) => d.id);
      await ledger.markSending(ids, 1_000);
      await ledger.recordOutcome(ids[0], {
        state: 'failed',
        errors: [{ message: 'gave up: 503' }],
      });
      await ledger.setInDoubt([ids[1]], 'no answer came back', 2_000);
      await ledger.recordPull('main', 7_000, { documents: 4 });
      const s = await ledger.statusSummary();
      expect(s.byCompanyKind).toEqual([
        {
          company: 'main',
          kind: 'invoice',
          counts: {
            pending: 0,
            sending: 1,
            accepted: 0,
            rejected: 0,
            invalid: 0,
            failed: 1,
            duplicate: 0,
            'in-doubt': 1,
          },
        },
      ]);
      expect(s.filesInProgress).toHaveLength(1);
      expect(s.failed[0]).toMatchObject({
        key: 'main/invoice/SETP990000000',
        lastError: 'gave up: 503',
        file: 'a.json',
      });
      expect(s.inDoubt[0]).toMatchObject({
        key: 'main/invoice/SETP990000001',
        lastError: 'no answer came back',
      });
      expect(s.lastPulls).toEqual([{ company: 'main', at: 7_000, data: { documents: 4 } }]);
      await ledger.close();
    });

    it('keeps the received cursor and received documents per company', async () => {
      const ledger = await open();
      expect(await ledger.getCursor('main')).toBeUndefined();
      await ledger.setCursor('main', '2026-11-01', 1);
      await ledger.setCursor('main', '2026-11-02', 2);
      expect(await ledger.getCursor('main')).toBe('2026-11-02');
      expect(await ledger.seenReceived('main', 'cufe-1')).toBe(false);
      expect(
        await ledger.recordReceived({
          company: 'main',
          documentId: 'cufe-1',
          documentNumber: 'FE1',
          files: ['a.xml'],
          at: 3,
        }),
      ).toBe(true);
      expect(
        await ledger.recordReceived({ company: 'main', documentId: 'cufe-1', files: [], at: 4 }),
      ).toBe(false);
      expect(await ledger.seenReceived('main', 'cufe-1')).toBe(true);
      expect(await ledger.seenReceived('other', 'cufe-1')).toBe(false);
      await ledger.close();
    });
  });

  describe('read-only open', () => {
    it('reads a cleanly closed ledger (no -wal/-shm left) without writing to it', async () => {
      const l = await open();
      const { fileId } = await l.recordFile(fileInput());
      await l.insertDocuments(fileId, docs(2), 1_000);
      await l.close();
      const ro = await reopen(l, { readOnly: true });
      try {
        expect(ro.readOnly).toBe(true);
        expect((await ro.fileProgress(fileId)).total).toBe(2);
        await expect(ro.setCursor('main', 'x')).rejects.toThrow(/read-?only/i);
      } finally {
        await ro.close();
      }
    });
  });

  describe('per-file counts', () => {
    it('always equal a count of the documents themselves, through inserts, re-reads and state changes', async () => {
      const ledger = await open();
      const { fileId } = await ledger.recordFile(fileInput());
      await ledger.insertDocuments(
        fileId,
        docs(30, (i) => ({ problems: i % 7 === 0 ? [{ message: 'bad' }] : undefined })),
        1_000,
      );
      await ledger.insertDocuments(fileId, docs(40), 1_000); // a re-read after a crash: 10 new ones
      const due = (await ledger.claimDue('main', 1_000, 20)).map((d) => d.id);
      await ledger.markSending(due, 1_000);
      await ledger.recordOutcomes(
        due.slice(0, 10).map((id) => ({ id, state: 'accepted' as const })),
        1_100,
      );
      await ledger.recordOutcomes(
        due.slice(10, 15).map((id) => ({ id, state: 'pending' as const, nextAttemptAt: 2_000 })),
        1_100,
      );
      await ledger.setInDoubt(due.slice(15), 'no answer', 1_200);
      await ledger.requeue({ ids: due.slice(15, 17), includeInDoubt: true, now: 1_300 });
      const truth = Object.fromEntries(
        (
          await ledger.sql.all<{ state: string; n: number }>(
            'SELECT state, count(*) AS n FROM documents WHERE file_id = ? GROUP BY state',
            [fileId],
          )
        ).map((r) => [r.state, r.n]),
      );
      const counts = Object.fromEntries(
        Object.entries((await ledger.fileProgress(fileId)).counts).filter(([, n]) => n > 0),
      );
      expect(counts).toEqual(truth);
      expect((await ledger.fileProgress(fileId)).total).toBe(40);
      await ledger.close();
    });
  });

  describe('the report snapshot', () => {
    it('reads the source text only of documents the retry file may take, not of accepted or pending ones', async () => {
      const { ledger, fileId } = await openWithFile(open, 4);
      const [a, b, c] = (await ledger.claimDue('main', 1_000, 3)).map((d) => d.id);
      await ledger.markSending([a, b, c], 1_000);
      await ledger.recordOutcomes(
        [
          { id: a, state: 'accepted' },
          { id: b, state: 'rejected' },
          { id: c, state: 'failed' },
        ],
        1_100,
      );
      const snap = await ledger.snapshot();
      try {
        expect(
          (await collect(snap.iterateFileDocuments(fileId))).map((d) => [d.index, d.state, d.raw]),
        ).toEqual([
          [0, 'accepted', ''],
          [1, 'rejected', '{"Number":1}'],
          [2, 'failed', '{"Number":2}'],
          [3, 'pending', ''],
        ]);
      } finally {
        await snap.close();
      }
      await ledger.close();
    });
  });

  describe('iterateFileDocuments', () => {
    it('streams in index order and leaves the connection free between pages for the writers', async () => {
      const ledger = await open();
      const { fileId } = await ledger.recordFile(fileInput());
      await ledger.insertDocuments(fileId, docs(1_200), 1_000);
      await ledger.finishReading(fileId, 1_000);
      const seen: number[] = [];
      for await (const d of ledger.iterateFileDocuments(fileId)) {
        seen.push(d.index);
        // a write in the middle of the stream (an open .iterate() would make this throw "connection is busy")
        if (d.index === 499)
          await ledger.markSending([(await ledger.claimDue('main', 1_000, 1))[0].id]);
      }
      expect(seen).toEqual(Array.from({ length: 1_200 }, (_, i) => i));
      expect((await ledger.fileProgress(fileId)).counts.sending).toBe(1);
      await ledger.close();
    });
  });
});
