/** The ledger's `kind` column becomes a typed kind when a row is read, or a clear EDOC_KIND_UNKNOWN naming the row. */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isEdocError } from '../../src/errors.js';
import { Ledger, LEDGER_FILE } from '../../src/ledger/ledger.js';
import { docs, fileInput, tempDir } from '../ledger/helpers.js';

async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('ledger rows: kind', () => {
  it('reads a recorded kind back as the kind, and a kind no version wrote as an error naming the row', async () => {
    const dir = tempDir();
    let ledger = Ledger.open(dir);
    const { fileId } = await ledger.recordFile(
      fileInput({ kind: 'credit-note', path: '/inbox/credit-note/a.json' }),
    );
    await ledger.insertDocuments(fileId, docs(1), 1_000);
    await ledger.finishReading(fileId, 1_000);
    expect((await ledger.getFile(fileId))?.kind).toBe('credit-note');
    expect((await ledger.claimDue('main', Number.MAX_SAFE_INTEGER, 10)).map((d) => d.kind)).toEqual(
      ['credit-note'],
    );
    await ledger.close();

    const raw = new Database(path.join(dir, LEDGER_FILE));
    raw.prepare('UPDATE files SET kind = ?').run('Credit-Note');
    raw.prepare('UPDATE documents SET kind = ?').run('nota');
    const docId = (raw.prepare('SELECT id FROM documents').get() as { id: number }).id;
    raw.close();

    ledger = Ledger.open(dir);
    try {
      const fileErr = await thrown(() => ledger.getFile(fileId));
      expect(isEdocError(fileErr, 'EDOC_KIND_UNKNOWN')).toBe(true);
      expect((fileErr as Error).message).toMatch(
        new RegExp(`^ledger file ${fileId}: "Credit-Note" is not a document kind`),
      );
      const docErr = await thrown(() => ledger.claimDue('main', Number.MAX_SAFE_INTEGER, 10));
      expect(isEdocError(docErr, 'EDOC_KIND_UNKNOWN')).toBe(true);
      expect((docErr as Error).message).toMatch(
        new RegExp(`^ledger document ${docId}: "nota" is not a document kind`),
      );
    } finally {
      await ledger.close();
    }
  });
});
