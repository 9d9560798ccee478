import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { docs, fileInput, tempDir } from './helpers.js';

/** The SQLite ledger's write-ahead log: every committed write appends a frame to it (and syncs it). */
function walSize(dir: string): number {
  return statSync(path.join(dir, 'ledger.sqlite-wal')).size;
}

describe('a report state recorded again', () => {
  it('writes nothing when it is the state already: a progress report after another costs no commit', async () => {
    const dir = tempDir();
    const ledger = Ledger.open(dir);
    try {
      const { fileId } = await ledger.recordFile(fileInput());
      await ledger.insertDocuments(fileId, docs(2), 1_000);
      await ledger.finishReading(fileId, 1_000);
      await ledger.markReported(fileId, 'partial');
      const afterFirst = walSize(dir);
      await ledger.markReported(fileId, 'partial');
      await ledger.markReported(fileId, 'partial');
      expect(walSize(dir)).toBe(afterFirst);
      expect((await ledger.getFile(fileId))?.reportState).toBe('partial');
      // a change is still written
      await ledger.markReported(fileId, 'final');
      expect(walSize(dir)).toBeGreaterThan(afterFirst);
      expect((await ledger.getFile(fileId))?.reportState).toBe('final');
    } finally {
      await ledger.close();
    }
  });
});
