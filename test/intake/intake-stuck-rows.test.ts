/**
 * Which row a stuck intake worker names (src/intake/intake-reader.ts, read/row-mark.ts) when the row
 * that backtracks without end is not a document's first: a line's cell taken through a `capture`
 * pattern, or a `rows.lines` condition, on the third line of a three-line invoice. The real worker
 * (from the build) is replaced once silent for stuckAfter; the file fails with EDOC_READ_STUCK naming
 * the row whose cell holds the forty `a`s — the row the operator has to look at — not the document's
 * first row; in an export in two files, the lines file, whose rows the set's are. A worker stuck on a row
 * of a read its intake has left (a stand-in here) has no running file at fault: the read beside it comes
 * back `again`, as for any read cut short for another file's sake.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReadJob } from '../../src/intake/intake-documents.js';
import type { IntakeReader } from '../../src/intake/intake-reader.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import type { Mapping } from '../../src/map/mapping-types.js';
import { createLogger } from '../../src/log/logger.js';
import { countDocuments, csvReadJob } from '../helpers/intake-config.js';
import { BUILD_TIMEOUT_MS } from '../helpers/daemon-fixture.js';
import { buildCli, ROOT } from '../helpers/daemon-harness.js';
import { BACKTRACKING, POISON_NAME } from '../helpers/backtracking.js';
import { sale, toCsv } from '../map/helpers.js';
import { builtIntakeReader } from '../helpers/built-reader.js';

const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-stuck-rows-'));
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The shipped sales mapping with `line` replaced by `by` (checked to be there). */
async function salesMapping(dir: string, line: string, by: string): Promise<Mapping> {
  const shipped = fs.readFileSync(path.join(ROOT, 'config/mappings/sales.csv.yaml'), 'utf8');
  expect(shipped).toContain(line);
  const file = path.join(dir, 'sales-stuck.csv.yaml');
  fs.writeFileSync(
    file,
    shipped.replace(line, () => by),
  );
  return loadMapping(file);
}

/**
 * Invoice 990800001 with three lines on the file's rows 2, 3 and 4 (the header is row 1), the third
 * line's description the forty `a`s; then invoice 990800002 on row 5.
 */
function poisonCsv(file: string): void {
  fs.writeFileSync(
    file,
    toCsv([
      sale('990800001', '1'),
      sale('990800001', '2'),
      sale('990800001', '3', { descripcion: POISON_NAME }),
      sale('990800002', '1'),
    ]),
  );
}

async function builtReader(dir: string): Promise<IntakeReader> {
  const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'info' });
  closers.push(() => logger.close());
  const reader = await builtIntakeReader(logger, { stuckAfterMs: () => 1_000 });
  closers.push(() => reader.close());
  return reader;
}

function stuckLine(dir: string): Record<string, unknown> | undefined {
  return fs
    .readFileSync(path.join(dir, 'edoc-bridge.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.code === 'EDOC_READ_STUCK');
}

describe('which file and row an intake worker stuck on a row names', () => {
  beforeAll(buildCli, BUILD_TIMEOUT_MS);

  const cases: [string, string, string][] = [
    [
      'a line cell taken through a capture pattern',
      '      Description: { column: descripcion, required: true }',
      `      Description: { column: descripcion, capture: '${BACKTRACKING}', required: true }`,
    ],
    [
      'a rows.lines condition',
      'lines:\n  field: Lines',
      `rows:\n  lines: { column: descripcion, matches: '${BACKTRACKING}' }\nlines:\n  field: Lines`,
    ],
  ];
  for (const [what, line, by] of cases) {
    it(`${what}: the file is refused naming row 4, the row with the cell`, async () => {
      const dir = tempDir();
      const mapping = await salesMapping(dir, line, by);
      const reader = await builtReader(dir);
      const file = path.join(dir, 'ventas-lineas.csv');
      poisonCsv(file);
      const read = reader.read(csvReadJob(file, mapping), []).then(countDocuments);
      await expect(read).rejects.toMatchObject({
        code: 'EDOC_READ_STUCK',
        context: { file: 'ventas-lineas.csv', row: 4 },
      });
      await expect(read).rejects.toThrow(/^ventas-lineas\.csv: mapping row 4 took longer than 1 s/);
      expect(stuckLine(dir)).toMatchObject({ file: 'ventas-lineas.csv', row: 4 });
    }, 60_000);
  }

  it('an export in two files: the lines file is named, whose row the number is', async () => {
    const dir = tempDir();
    const shipped = fs.readFileSync(
      path.join(ROOT, 'config/mappings/erp/sap-b1-invoice.yaml'),
      'utf8',
    );
    const line = '      Description: { column: ItemDescription, required: true }';
    expect(shipped).toContain(line);
    fs.writeFileSync(
      path.join(dir, 'sap.yaml'),
      shipped.replace(
        line,
        () =>
          `      Description: { column: ItemDescription, capture: '${BACKTRACKING}', required: true }`,
      ),
    );
    const mapping = await loadMapping(path.join(dir, 'sap.yaml'));
    const sample = path.join(ROOT, 'examples/erp/sap-b1');
    const header = path.join(dir, 'Documents.csv');
    const lines = path.join(dir, 'Document_Lines.csv');
    fs.copyFileSync(path.join(sample, 'Documents.csv'), header);
    // rows 1 and 2 are the two header rows; row 5 is the third line of document 1 (the book)
    const text = fs.readFileSync(path.join(sample, 'Document_Lines.csv'), 'utf8');
    expect(text).toContain('Libro escolar Matemáticas 5');
    fs.writeFileSync(lines, text.replace('Libro escolar Matemáticas 5', POISON_NAME));
    const reader = await builtReader(dir);
    const job: ReadJob = { ...csvReadJob(header, mapping), parts: { header, lines } };
    const read = reader.read(job, []).then(countDocuments);
    await expect(read).rejects.toMatchObject({
      code: 'EDOC_READ_STUCK',
      context: { file: 'Document_Lines.csv', row: 5 },
    });
    await expect(read).rejects.toThrow(/^Document_Lines\.csv: mapping row 5 took longer than 1 s/);
  }, 60_000);

  it('stuck on a row of a read that has ended (its intake left it): the read beside it comes back again', async () => {
    const dir = tempDir();
    // a stand-in that speaks the worker's messages: a read of `left` hands over one batch, then marks its
    // row 9 (as the real worker does around a row) and blocks for good; any other read waits behind it
    const script = path.join(dir, 'left-behind-worker.mjs');
    fs.writeFileSync(
      script,
      `import { parentPort, workerData } from 'node:worker_threads';
const marks = new Int32Array(workerData.marks);
parentPort.on('message', (m) => {
  if (m.type === 'ping') parentPort.postMessage({ type: 'pong', id: 0 });
  if (m.type !== 'read' || !m.job.path.includes('left')) return;
  parentPort.postMessage({ type: 'opened', id: m.id, details: { format: 'csv', encoding: 'utf-8', header: null } });
  parentPort.postMessage({ type: 'batch', id: m.id, docs: [] });
  setTimeout(() => {
    Atomics.store(marks, 1, 9);
    Atomics.store(marks, 0, m.id);
    for (;;);
  }, 100);
});
parentPort.postMessage({ type: 'pong', id: 0 }); // loaded, as the real worker says
`,
    );
    const { IntakeReader: Reader } = await import('../../src/intake/intake-reader.js');
    const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'info' });
    closers.push(() => logger.close());
    const reader = new Reader(logger, {
      script: pathToFileURL(script),
      stuckAfterMs: () => 1_000,
    });
    closers.push(() => reader.close());
    const mapping = await salesMapping(dir, cases[0][1], cases[0][2]);
    const left = path.join(dir, 'ventas-left.csv');
    const beside = path.join(dir, 'ventas-beside.csv');
    for (const file of [left, beside]) poisonCsv(file);
    const read = await reader.read(csvReadJob(left, mapping), []);
    // the intake leaves the read after its first batch (an insert that failed: a full disk, the ledger gone)
    for await (const _batch of read.batches) break;
    // the worker is stuck on that read's row now; the next file is not at fault
    await expect(reader.read(csvReadJob(beside, mapping), [])).rejects.toMatchObject({
      code: 'EDOC_READ_WORKER',
      context: { again: true },
    });
  }, 60_000);

  it('without the forty `a`s the same file reads whole (the patterns themselves are accepted)', async () => {
    const dir = tempDir();
    const mapping = await salesMapping(dir, cases[0][1], cases[0][2]);
    const reader = await builtReader(dir);
    const file = path.join(dir, 'ventas-sanas.csv');
    fs.writeFileSync(
      file,
      toCsv([sale('990800001', '1'), sale('990800001', '2'), sale('990800002', '1')]),
    );
    expect(await countDocuments(await reader.read(csvReadJob(file, mapping), []))).toBe(2);
  }, 60_000);
});
