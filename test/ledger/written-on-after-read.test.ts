/**
 * A file that failed at its read and whose archived copy was then written on (taken at a writer's
 * pause): its file-level error becomes EDOC_READ_CHANGED, quoting the earlier one, its report is due
 * again, and the documents held by the failed read leave the retry file (the complete copy sends them).
 */
import { expect, it } from 'vitest';
import type { FileError } from '../../src/ledger/types.js';
import { describeBackends } from './backends.js';
import { docs, fileInput } from './helpers.js';

const writtenOn = (earlier: FileError): FileError => ({
  code: 'EDOC_READ_CHANGED',
  message: `written on after it was read (${earlier.code})`,
});

describeBackends('a failed read written on afterwards', (b) => {
  it('takes the new error once, marks its held documents as sent by the complete copy, and leaves other files alone', async () => {
    const ledger = await b.open();
    const failed = await ledger.recordFile(fileInput({ name: 'pausa.csv', path: '/in/pausa.csv' }));
    await ledger.insertDocuments(failed.fileId, docs(2), 1_000);
    expect(
      await ledger.failRead(
        failed.fileId,
        { code: 'EDOC_MAP_CSV_SYNTAX', message: 'quote' },
        2_000,
      ),
    ).toBe(2);
    await ledger.markReported(failed.fileId, 'final');

    expect(await ledger.flagWrittenOnAfterRead(failed.fileId, writtenOn, 3_000)).toBe(true);
    const file = await ledger.getFile(failed.fileId);
    expect(file?.error).toEqual({
      code: 'EDOC_READ_CHANGED',
      message: 'written on after it was read (EDOC_MAP_CSV_SYNTAX)',
    });
    expect(file?.reportState).toBe('none');
    const rows = await ledger.sql.all<{ state: string; errors: string }>(
      'SELECT state, errors FROM documents WHERE file_id = ? ORDER BY idx',
      [failed.fileId],
    );
    expect(rows.map((r) => r.state)).toEqual(['invalid', 'invalid']);
    for (const r of rows)
      expect(JSON.parse(r.errors)).toEqual([
        {
          code: 'EDOC_READ_CHANGED',
          message:
            'Not sent: the file was written on after it was read (it was taken unfinished); its complete content is taken as a new file.',
        },
      ]);
    // once only
    expect(await ledger.flagWrittenOnAfterRead(failed.fileId, writtenOn, 4_000)).toBe(false);

    // a file read whole is not one
    const read = await ledger.recordFile(
      fileInput({ name: 'b.csv', path: '/in/b.csv', sha256: 'b'.repeat(64) }),
    );
    await ledger.insertDocuments(read.fileId, docs(1), 1_000);
    await ledger.finishReading(read.fileId, 2_000);
    expect(await ledger.flagWrittenOnAfterRead(read.fileId, writtenOn, 3_000)).toBe(false);
    expect((await ledger.getFile(read.fileId))?.error).toBeNull();
    await ledger.close();
  });
});
