import v8 from 'node:v8';
import vm from 'node:vm';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import type { NewDocument } from '../../src/ledger/types.js';
import { settleFile, writeFileReport } from '../../src/daemon/file-reports.js';
import { tempDir, tempFiles } from './helpers.js';

/**
 * The heap in use but the young generation's semi-spaces: what a report keeps. Short-lived garbage waits there
 * for the next scavenge, and how much of it may wait differs by Node version (Node 24 grows the semi-spaces
 * well past Node 20's 16 MB), so counting it measured the runtime rather than the report. A string or
 * buffer of the whole report would still count: large objects live in their own spaces, young or old.
 */
function heapOutsideNursery(): number {
  return v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_name !== 'new_space')
    .reduce((sum, s) => sum + s.space_used_size, 0);
}

/** A full garbage collection (V8's gc(), exposed at run time: the test process has no --expose-gc). */
const collectGarbage = ((): (() => void) => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

interface ResultJson {
  file: string;
  kind: string;
  company: string;
  sha256: string;
  startedAt: string;
  finishedAt: string | null;
  error?: { code: string; message: string };
  counts: Record<string, number>;
  documents: {
    index: number;
    source: unknown;
    key: string | null;
    status: string;
    resultCode: string | null;
    httpStatus: number | null;
    errors: { message: string }[];
    warnings: string[];
    response: unknown;
  }[];
}

const CONTENT = '[{"Number":1},{"Number":2},{"Number":3}]';
const SHA = createHash('sha256').update(CONTENT).digest('hex');

async function setup(name = 'ventas.json') {
  const root = tempDir();
  const inbox = path.join(root, 'inbox', 'invoice');
  const outbox = path.join(root, 'outbox', 'invoice');
  fs.mkdirSync(inbox, { recursive: true });
  fs.mkdirSync(outbox, { recursive: true });
  const input = path.join(inbox, name);
  fs.writeFileSync(input, CONTENT);
  const ledger = Ledger.open(path.join(root, 'state'));
  const { fileId } = await ledger.recordFile({
    path: input,
    name,
    size: CONTENT.length,
    sha256: SHA,
    kind: 'invoice',
    company: 'main',
    now: Date.parse('2026-11-22T03:00:00Z'),
  });
  return { root, inbox, outbox, input, ledger, fileId };
}

const read = (p: string) => JSON.parse(fs.readFileSync(p, 'utf8')) as ResultJson;

describe('writeFileReport and settleFile', () => {
  it('writes result.json, errors.csv and the retry file from the ledger, then settles and archives', async () => {
    const { outbox, input, ledger, fileId } = await setup();
    await ledger.setReadDetails(fileId, { format: 'json', encoding: 'utf8' });
    await ledger.insertDocuments(
      fileId,
      [0, 1, 2].map((i): NewDocument => ({
        index: i,
        source: { lines: [1] },
        number: `SETP${i}`,
        ownNumber: true,
        request: { Number: i },
        raw: `{"Number":${i + 1}}`,
      })),
      1_000,
    );
    await ledger.finishReading(fileId, 1_000);
    const ids = (await ledger.claimDue('main', Date.now(), 3)).map((d) => d.id);
    await ledger.markSending(ids);
    await ledger.recordOutcomes([
      {
        id: ids[0],
        state: 'accepted',
        resultCode: '100',
        httpStatus: 200,
        warnings: ['Note'],
        response: { Cufe: 'abc' },
      },
      {
        id: ids[1],
        state: 'rejected',
        resultCode: '99',
        httpStatus: 200,
        errors: [{ message: 'NIT; no "válido"' }],
      },
    ]);

    const partial = await writeFileReport(ledger, fileId, outbox);
    expect(partial.final).toBe(false);
    const r1 = read(partial.resultPath);
    expect(r1).toMatchObject({
      file: 'ventas.json',
      kind: 'invoice',
      company: 'main',
      sha256: SHA,
      startedAt: '2026-11-22T03:00:00.000Z',
      finishedAt: null,
      counts: {
        total: 3,
        accepted: 1,
        rejected: 1,
        invalid: 0,
        failed: 0,
        duplicate: 0,
        inDoubt: 0,
      },
    });
    expect(Object.keys(r1.counts)).toEqual([
      'total',
      'accepted',
      'rejected',
      'invalid',
      'failed',
      'duplicate',
      'inDoubt',
    ]);
    expect(r1.documents[0]).toEqual({
      index: 0,
      source: { lines: [1] },
      key: 'main/invoice/SETP0',
      status: 'accepted',
      resultCode: '100',
      httpStatus: 200,
      errors: [],
      warnings: ['Note'],
      response: { Cufe: 'abc' },
      // this test's key is not `company/kind/prefix/number`, and the answer is no shape the spec gives
      issued: { prefix: null, number: null, numberedBy: 'erp' },
    });
    expect(r1.documents[2].status).toBe('sending');
    expect(await settleFile(ledger, fileId, outbox)).toEqual({ settled: false });

    await ledger.recordOutcome(ids[2], { state: 'accepted', resultCode: '100', httpStatus: 200 });
    const settled = await settleFile(ledger, fileId, outbox);
    expect(settled.settled).toBe(true);
    expect(settled.archivedPath).toBe(path.join(outbox, 'archive', 'ventas.json'));
    expect(fs.existsSync(input)).toBe(false);
    const r2 = read(path.join(outbox, 'ventas.result.json'));
    expect(r2.finishedAt).not.toBeNull();
    expect(r2.counts).toMatchObject({ accepted: 2, rejected: 1 });
    expect(JSON.parse(fs.readFileSync(path.join(outbox, 'ventas.retry.json'), 'utf8'))).toEqual([
      { Number: 2 },
    ]);
    const csv = parse(fs.readFileSync(path.join(outbox, 'ventas.errors.csv'), 'utf8').slice(1), {
      delimiter: ';',
    }) as string[][];
    expect(csv[1]).toEqual([
      '1',
      'main/invoice/SETP1',
      'rejected',
      'lines 1',
      '99',
      '',
      '',
      'NIT; no "válido"',
    ]);
    expect(await ledger.getFile(fileId)).toMatchObject({ state: 'done', reportState: 'final' });
    expect(await ledger.filesToSettle()).toEqual([]);
    expect(tempFiles(outbox)).toEqual([]);
    // settling again (a crash after the archive step) changes nothing
    expect(await settleFile(ledger, fileId, outbox)).toEqual({ settled: true });
    await ledger.close();
  });

  it('a file that could not be read gets result.json with the error and zero documents, errors.csv, and is archived', async () => {
    const { outbox, ledger, fileId } = await setup('roto.json');
    await ledger.failRead(
      fileId,
      { code: 'EDOC_READ_JSON', message: 'Unexpected end of JSON input at line 1' },
      Date.now(),
    );
    const s = await settleFile(ledger, fileId, outbox);
    expect(s.settled).toBe(true);
    const r = read(path.join(outbox, 'roto.result.json'));
    expect(r.error).toEqual({
      code: 'EDOC_READ_JSON',
      message: 'Unexpected end of JSON input at line 1',
    });
    expect(r.documents).toEqual([]);
    expect(r.counts.total).toBe(0);
    expect(r.finishedAt).not.toBeNull();
    const csv = parse(fs.readFileSync(path.join(outbox, 'roto.errors.csv'), 'utf8').slice(1), {
      delimiter: ';',
    }) as string[][];
    expect(csv[1]).toEqual([
      '',
      '',
      'error',
      '',
      'EDOC_READ_JSON',
      '',
      '',
      'Unexpected end of JSON input at line 1',
    ]);
    expect(fs.existsSync(path.join(outbox, 'roto.retry.json'))).toBe(false);
    expect(fs.existsSync(path.join(outbox, 'archive', 'roto.json'))).toBe(true);
    await ledger.close();
  });

  it('a read that fails half-way sends none of the documents read before the failure', async () => {
    const { outbox, ledger, fileId } = await setup('cortado.jsonl');
    await ledger.setReadDetails(fileId, { format: 'jsonl' });
    await ledger.insertDocuments(
      fileId,
      [0, 1, 2].map((i): NewDocument => ({
        index: i,
        source: { lines: [i + 1] },
        number: `N${i}`,
        ownNumber: true,
        raw: `{"n":${i}}`,
      })),
    );
    // held back while the file is read: nothing is due before the read ends
    expect(await ledger.claimDue('main', Date.now(), 10)).toEqual([]);
    expect(
      await ledger.failRead(fileId, { code: 'EDOC_READ_JSON', message: 'line 4 is not JSON' }),
    ).toBe(3);
    expect(await ledger.claimDue('main', Date.now(), 10)).toEqual([]);
    expect((await settleFile(ledger, fileId, outbox)).settled).toBe(true);
    const r = read(path.join(outbox, 'cortado.result.json'));
    expect(r.error?.code).toBe('EDOC_READ_JSON');
    expect(r.documents.map((d) => d.status)).toEqual(['invalid', 'invalid', 'invalid']);
    expect(r.finishedAt).not.toBeNull();
    expect(fs.readFileSync(path.join(outbox, 'cortado.retry.jsonl'), 'utf8')).toBe(
      '{"n":0}\n{"n":1}\n{"n":2}\n',
    );
    await ledger.close();
  });

  it('the same content dropped again is reported with the earlier file named, not sent, and archived', async () => {
    const { inbox, outbox, ledger, fileId } = await setup();
    await ledger.finishReading(fileId);
    await settleFile(ledger, fileId, outbox);
    const again = path.join(inbox, 'ventas-copia.json');
    fs.writeFileSync(again, CONTENT);
    const dup = await ledger.recordFile({
      path: again,
      name: 'ventas-copia.json',
      size: CONTENT.length,
      sha256: SHA,
      kind: 'invoice',
      company: 'main',
      now: Date.now(),
    });
    expect(dup.outcome).toBe('duplicate');
    expect((await settleFile(ledger, dup.fileId, outbox)).archivedPath).toBe(
      path.join(outbox, 'archive', 'ventas-copia.json'),
    );
    const r = read(path.join(outbox, 'ventas-copia.result.json'));
    expect(r.error?.code).toBe('EDOC_LEDGER_DUPLICATE_FILE');
    expect(r.error?.message).toContain('ventas.json');
    expect(r.documents).toEqual([]);
    expect(fs.existsSync(path.join(outbox, 'ventas-copia.errors.csv'))).toBe(true);
    await ledger.close();
  });

  it('an outbox that cannot be written leaves the report pending in the ledger, written once it is back', async () => {
    const { root, ledger, fileId } = await setup();
    await ledger.failRead(fileId, { code: 'EDOC_READ_EMPTY', message: 'empty' });
    const blocked = path.join(root, 'outbox-blocked');
    fs.writeFileSync(blocked, 'a file where the folder should be');
    await expect(settleFile(ledger, fileId, path.join(blocked, 'invoice'))).rejects.toMatchObject({
      code: 'EDOC_REPORT_WRITE',
    });
    expect((await ledger.getFile(fileId))?.reportState).toBe('none');
    expect((await ledger.filesToSettle()).map((f) => f.id)).toEqual([fileId]);
    fs.rmSync(blocked);
    expect((await settleFile(ledger, fileId, path.join(blocked, 'invoice'))).settled).toBe(true);
    expect(fs.existsSync(path.join(blocked, 'invoice', 'ventas.result.json'))).toBe(true);
    expect(await ledger.filesToSettle()).toEqual([]);
    await ledger.close();
  });

  it('leaves the original in place when archiving is off (a file given to edoc-bridge submit)', async () => {
    const { input, outbox, ledger, fileId } = await setup();
    await ledger.failRead(fileId, { code: 'EDOC_READ_EMPTY', message: 'empty' });
    const s = await settleFile(ledger, fileId, outbox, { archive: false });
    expect(s.settled).toBe(true);
    expect(s.archivedPath).toBeUndefined();
    expect(fs.existsSync(input)).toBe(true);
    expect(fs.existsSync(path.join(outbox, 'ventas.result.json'))).toBe(true);
    await ledger.close();
  });

  it('does not archive a different file dropped under the same name while the first was in progress', async () => {
    const { input, outbox, ledger, fileId } = await setup();
    await ledger.failRead(fileId, { code: 'EDOC_READ_EMPTY', message: 'empty' });
    fs.writeFileSync(input, '[{"Number":9}]');
    const s = await settleFile(ledger, fileId, outbox);
    expect(s.settled).toBe(true);
    expect(s.archivedPath).toBeUndefined();
    expect(fs.readFileSync(input, 'utf8')).toBe('[{"Number":9}]');
    expect(await ledger.filesToSettle()).toEqual([]);
    await ledger.close();
  });

  it('removes a stale errors.csv and retry file once a requeued document succeeds', async () => {
    const { outbox, ledger, fileId } = await setup();
    await ledger.setReadDetails(fileId, { format: 'json' });
    await ledger.insertDocuments(fileId, [
      { index: 0, source: { lines: [1] }, number: 'N1', ownNumber: true, raw: '{"a":1}' },
    ]);
    await ledger.finishReading(fileId);
    const [d] = await ledger.claimDue('main', Date.now(), 1);
    await ledger.markSending([d.id]);
    await ledger.recordOutcome(d.id, { state: 'failed', errors: [{ message: 'gave up' }] });
    await settleFile(ledger, fileId, outbox);
    expect(fs.existsSync(path.join(outbox, 'ventas.errors.csv'))).toBe(true);
    expect(fs.existsSync(path.join(outbox, 'ventas.retry.json'))).toBe(true);

    await ledger.requeue({ fileName: 'ventas.json', now: Date.now() });
    await ledger.markSending([d.id]);
    await ledger.recordOutcome(d.id, { state: 'accepted' });
    await settleFile(ledger, fileId, outbox);
    expect(fs.readdirSync(outbox).sort()).toEqual(['archive', 'ventas.result.json']);
    expect(read(path.join(outbox, 'ventas.result.json')).counts.accepted).toBe(1);
    await ledger.close();
  });

  it('streams a 200,000-document report with bounded memory; result.json parses and counts match', async () => {
    const { outbox, ledger, fileId } = await setup('grande.jsonl');
    await ledger.setReadDetails(fileId, { format: 'jsonl' });
    const problem = [
      {
        code: 'EDOC_VALIDATE_TOTALS',
        field: 'LegalMonetaryTotal.PayableAmount',
        message: 'PayableAmount 119.00 does not equal the sum of the lines plus taxes (120.00).',
      },
    ];
    await ledger.insertDocuments(
      fileId,
      (function* (): Generator<NewDocument> {
        for (let i = 0; i < 200_000; i++) {
          yield {
            index: i,
            source: { lines: [i + 1] },
            number: `SETP${990000000 + i}`,
            ownNumber: true,
            raw: `{"Number":${990000000 + i},"Customer":"Cliente número ${i}"}`,
            problems: i % 2 === 0 ? problem : undefined,
          };
        }
      })(),
    );
    await ledger.finishReading(fileId);

    // one string of the whole report (over 40 MB) would cost at least its size again in the heap. Sampled
    // often; a sample over the bound is taken again after a full collection, so that garbage not yet
    // collected (promoted short-lived strings: how much depends on the machine's load and V8's version)
    // does not count, while a report held whole, being live, still does
    const bound = 20_000_000;
    collectGarbage();
    const before = heapOutsideNursery();
    let peak = before;
    const sample = (): void => {
      let used = heapOutsideNursery();
      if (used - before >= bound) {
        collectGarbage();
        used = heapOutsideNursery();
      }
      peak = Math.max(peak, used);
    };
    const timer = setInterval(sample, 2);
    const report = await writeFileReport(ledger, fileId, outbox);
    clearInterval(timer);
    sample();

    const size = fs.statSync(report.resultPath).size;
    expect(size).toBeGreaterThan(40_000_000);
    expect(peak - before).toBeLessThan(bound);
    const r = read(report.resultPath);
    expect(r.documents).toHaveLength(200_000);
    expect(r.counts).toEqual({
      total: 200_000,
      accepted: 0,
      rejected: 0,
      invalid: 100_000,
      failed: 0,
      duplicate: 0,
      inDoubt: 0,
    });
    expect(r.documents.filter((d) => d.status === 'invalid')).toHaveLength(r.counts.invalid);
    expect(r.documents[199_999]).toMatchObject({
      index: 199_999,
      status: 'pending',
      key: 'main/invoice/SETP990199999',
    });
    const retryLines = fs.readFileSync(report.retryPath ?? '', 'utf8').split('\n');
    expect(retryLines).toHaveLength(100_001);
    expect(tempFiles(outbox)).toEqual([]);
    await ledger.close();
  }, 30_000);
});
