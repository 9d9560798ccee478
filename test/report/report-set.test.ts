/**
 * The report stage writes files from rows it is given; recording the report (and moving earlier
 * reports aside in the ledger) is the pipeline's, src/daemon/file-reports.ts (docs/architecture.md, "Flow").
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileReport } from '../../src/daemon/file-reports.js';
import { Ledger } from '../../src/ledger/ledger.js';
import type { DocumentRow, FileProgress, FileRow } from '../../src/ledger/types.js';
import { writeReportSet } from '../../src/report/file-report.js';
import type { ReportSource } from '../../src/report/file-report.js';
import { tempDir } from './helpers.js';
import { collect } from '../ledger/helpers.js';

const CONTENT = '[{"Number":1},{"Number":2}]';

async function recorded() {
  const root = tempDir();
  const outbox = path.join(root, 'outbox', 'invoice');
  fs.mkdirSync(outbox, { recursive: true });
  const input = path.join(root, 'ventas.json');
  fs.writeFileSync(input, CONTENT);
  const ledger = Ledger.open(path.join(root, 'state'));
  const { fileId } = await ledger.recordFile({
    path: input,
    name: 'ventas.json',
    size: CONTENT.length,
    sha256: createHash('sha256').update(CONTENT).digest('hex'),
    kind: 'invoice',
    company: 'main',
    now: 1_000,
  });
  await ledger.setReadDetails(fileId, { format: 'json', encoding: 'utf8' });
  await ledger.insertDocuments(
    fileId,
    [0, 1].map((i) => ({
      index: i,
      source: { lines: [1] },
      number: `SETP${i}`,
      ownNumber: true,
      request: { Number: i + 1 },
      raw: `{"Number":${i + 1}}`,
    })),
    1_000,
  );
  await ledger.finishReading(fileId, 1_000);
  const ids = (await ledger.claimDue('main', Date.now(), 2)).map((d) => d.id);
  await ledger.markSending(ids);
  await ledger.recordOutcomes([
    {
      id: ids[1],
      state: 'rejected',
      resultCode: '99',
      httpStatus: 200,
      errors: [{ message: 'NIT no válido' }],
    },
  ]);
  return { outbox, ledger, fileId };
}

/** The rows of one file, copied out of the ledger: what the report stage is given, and nothing that writes. */
async function rowsOf(ledger: Ledger, fileId: number): Promise<ReportSource> {
  const snap = await ledger.snapshot();
  try {
    const file = (await snap.file(fileId)) as FileRow;
    const progress: FileProgress = await snap.fileProgress(fileId);
    const docs: DocumentRow[] = await collect(snap.iterateFileDocuments(fileId));
    return {
      file: async (id) => (id === fileId ? file : undefined),
      fileProgress: async () => progress,
      iterateFileDocuments: async function* () {
        yield* docs;
      },
    };
  } finally {
    await snap.close();
  }
}

describe('the report stage', () => {
  it('writes result.json, errors.csv and the retry file from rows alone and records nothing', async () => {
    const { outbox, ledger, fileId } = await recorded();
    const source = await rowsOf(ledger, fileId);
    await ledger.close();
    const out = await writeReportSet(source, fileId, outbox);
    expect(out.final).toBe(false);
    expect(path.basename(out.resultPath)).toBe('ventas.result.json');
    const result = JSON.parse(fs.readFileSync(out.resultPath, 'utf8')) as {
      counts: Record<string, number>;
      documents: { status: string }[];
    };
    expect(result.counts).toMatchObject({ total: 2, rejected: 1 });
    expect(result.documents.map((d) => d.status)).toEqual(['sending', 'rejected']);
    expect(fs.readFileSync(out.errorsPath ?? '', 'utf8')).toContain('NIT no válido');
    expect(fs.readFileSync(out.retryPath ?? '', 'utf8')).toContain('{"Number":2}');
  });

  it('leaves recording the report to the pipeline: writeReportSet marks nothing, writeFileReport marks it partial', async () => {
    const { outbox, ledger, fileId } = await recorded();
    const snap = await ledger.snapshot();
    try {
      await writeReportSet(snap, fileId, outbox);
    } finally {
      await snap.close();
    }
    expect((await ledger.getFile(fileId))?.reportState).toBe('none');
    await writeFileReport(ledger, fileId, outbox);
    expect((await ledger.getFile(fileId))?.reportState).toBe('partial');
    await ledger.close();
  });
});
