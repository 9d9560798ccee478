/**
 * A verdict's key (the number the service assigned to a document it numbered) is written by a statement
 * of its own, before the verdict (verdicts.ts assignKeys): only to a document that has no key and is
 * still `sending`, as `coalesce(key, ?)` in the verdict did. On SQLite a verdict of a document whose key
 * stays writes no page of the key index (with `key` in the verdict's SET it rewrote one per verdict).
 */
import fs from 'node:fs';
import { expect, it } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import type { SqliteExecutor } from '../../src/ledger/sql/sqlite.js';
import { describeBackends, sqliteBackend } from './backends.js';
import { docs, fileInput } from './helpers.js';
import { describe } from 'vitest';

/** Four documents: two with their own key (0, 1), two the service numbers (2, 3); 0–2 marked `sending`. */
async function ledgerWithSending(open: () => Promise<Ledger>): Promise<{
  ledger: Ledger;
  ids: number[];
}> {
  const ledger = await open();
  const { fileId } = await ledger.recordFile(fileInput());
  await ledger.insertDocuments(
    fileId,
    docs(4, (i) => (i < 2 ? {} : { number: null, ownNumber: false })),
    1_000,
  );
  await ledger.finishReading(fileId, 1_000);
  const ids = (await ledger.claimDue('main', 5_000, 100)).map((d) => d.id).sort((a, b) => a - b);
  expect((await ledger.markSending(ids.slice(0, 3), 2_000)).sending).toHaveLength(3);
  return { ledger, ids };
}

async function keys(ledger: Ledger): Promise<(string | null)[]> {
  const rows = await ledger.sql.all<{ key: string | null }>(
    'SELECT key FROM documents ORDER BY id',
  );
  return rows.map((r) => r.key);
}

describeBackends('the key a verdict assigns', ({ open }) => {
  it('is written only to a document without a key that is still sending, in a batch', async () => {
    const { ledger, ids } = await ledgerWithSending(open);
    try {
      const before = await keys(ledger);
      expect(before[2]).toBeNull();
      const done = await ledger.recordOutcomes(
        [
          // has its own key: kept
          { id: ids[0]!, state: 'accepted', key: 'invoice/main/SETP/1' },
          { id: ids[1]!, state: 'accepted' },
          // numbered by the service: takes the number
          { id: ids[2]!, state: 'accepted', key: 'invoice/main/SETP/2' },
          // still pending, never marked: no verdict, no key
          { id: ids[3]!, state: 'accepted', key: 'invoice/main/SETP/3' },
        ],
        3_000,
      );
      expect(done.applied).toEqual(ids.slice(0, 3));
      expect(await keys(ledger)).toEqual([before[0], before[1], 'invoice/main/SETP/2', null]);
    } finally {
      await ledger.close();
    }
  });

  it('of a document twice in one batch is the first verdict’s, the second changing nothing', async () => {
    const { ledger, ids } = await ledgerWithSending(open);
    try {
      const done = await ledger.recordOutcomes(
        [
          { id: ids[2]!, state: 'accepted', key: 'invoice/main/SETP/20' },
          { id: ids[2]!, state: 'accepted', key: 'invoice/main/SETP/21' },
        ],
        3_000,
      );
      expect(done.applied).toEqual([ids[2]]);
      expect((await keys(ledger))[2]).toBe('invoice/main/SETP/20');
      // one verdict alone (no batch) assigns the same way
      await ledger.recordOutcomes([{ id: ids[1]!, state: 'failed', key: 'ignored' }], 3_000);
      expect((await keys(ledger))[1]).not.toBe('ignored');
    } finally {
      await ledger.close();
    }
  });
});

/** The page numbers of the frames in a WAL file (its 32-byte header, then 24-byte frame headers + pages). */
function walPages(file: string, pageSize: number): number[] {
  const buf = fs.readFileSync(file);
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= buf.length; at += 24 + pageSize)
    pages.push(buf.readUInt32BE(at));
  return pages;
}

describe('verdicts and the key index [sqlite]', () => {
  it('a verdict that keeps the key writes no page of the key index', async () => {
    const { ledger, ids } = await ledgerWithSending(sqliteBackend().open);
    try {
      const db = (ledger.sql as SqliteExecutor).db;
      const keyPages = new Set(
        db
          .prepare("SELECT pageno FROM dbstat WHERE name = 'documents_key'")
          .pluck()
          .all() as number[],
      );
      expect(keyPages.size).toBeGreaterThan(0);
      // from an empty WAL: what the verdicts' commit writes is all that is in it
      db.pragma('wal_checkpoint(TRUNCATE)');
      await ledger.recordOutcomes(
        [
          { id: ids[0]!, state: 'accepted' },
          { id: ids[1]!, state: 'rejected', key: 'invoice/main/SETP/9' },
        ],
        3_000,
      );
      const written = walPages(
        `${db.name}-wal`,
        db.pragma('page_size', { simple: true }) as number,
      );
      expect(written.length).toBeGreaterThan(0);
      expect(written.filter((p) => keyPages.has(p))).toEqual([]);
    } finally {
      await ledger.close();
    }
  });
});
