/**
 * An intake worker that stops answering (src/intake/intake-reader.ts): a mapping's capture pattern that
 * backtracks without end on one row's cells — `^(?:(?:a|a)*b)?(.*)$` on forty `a`s takes 2^40 steps,
 * and the load-time check for nested repetition does not see it — would hold every file back. The real
 * worker (from the build) is replaced once silent for stuckAfter: the file it was mapping fails with
 * EDOC_READ_STUCK naming its row, a file read beside it fails with EDOC_READ_WORKER marked `again` (the
 * pipeline reads it again) and reads whole on the new worker. A pause of this thread three times
 * stuckAfter (the process stopped, a long step here) fails nothing. A worker stuck outside any row (a
 * stand-in here) fails every read it had.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReadJob } from '../../src/intake/intake-documents.js';
import type { IntakeReader } from '../../src/intake/intake-reader.js';
import { intakeFile } from '../../src/intake/intake.js';
import { IntakeQueue } from '../../src/intake/intake-queue.js';
import type { PipelineFile } from '../../src/intake/pipeline-file.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { loadMapping } from '../../src/map/load-mapping.js';
import { invoice } from '../helpers/documents.js';
import { createLogger } from '../../src/log/logger.js';
import { BUILD_TIMEOUT_MS } from '../helpers/daemon-fixture.js';
import { buildCli, ROOT } from '../helpers/daemon-harness.js';
import { builtIntakeReader } from '../helpers/built-reader.js';
import { POISON_NAME, salesCsv, writeBacktrackingMapping } from '../helpers/backtracking.js';
import {
  countDocuments,
  csvReadJob,
  invoiceIntakeConfig,
  testIntakeContext,
} from '../helpers/intake-config.js';

const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-intake-stuck-'));
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function builtReader(dir: string, stuckAfterMs: number): Promise<IntakeReader> {
  const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'info' });
  closers.push(() => logger.close());
  const reader = await builtIntakeReader(logger, { stuckAfterMs: () => stuckAfterMs });
  closers.push(() => reader.close());
  return reader;
}

function logLines(dir: string): Record<string, unknown>[] {
  const text = fs.readFileSync(path.join(dir, 'edoc-bridge.log'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Writes salesCsv's text to `file`. */
function writeSales(file: string, ...args: Parameters<typeof salesCsv>): void {
  fs.writeFileSync(file, salesCsv(...args));
}

describe('an intake worker stuck on one row', () => {
  beforeAll(buildCli, BUILD_TIMEOUT_MS);

  it('refuses that file naming its row, and reads the file beside it again on a new worker', async () => {
    const dir = tempDir();
    const mapping = await loadMapping(writeBacktrackingMapping(dir));
    // 3 s, not less: on a loaded machine (load 8 on 2 cores) a worker was once silent for over 1 s outside
    // any row, and the watch then rightly failed every read as "worker replaced", naming no row
    const reader = await builtReader(dir, 3_000);
    // 1,500 invoices: the worker hands over two batches of 500 and waits, so this read stays open in it
    const beside = path.join(dir, 'ventas-grandes.csv');
    writeSales(beside, 990100001, 1_500);
    const open = await reader.read(csvReadJob(beside, mapping), []);
    // data row 2 is the file's row 3 (the header is row 1)
    const poison = path.join(dir, 'ventas-nombre-largo.csv');
    writeSales(poison, 990200001, 3, { 2: POISON_NAME });
    const started = Date.now();
    const stuck = reader.read(csvReadJob(poison, mapping), []).then(countDocuments);
    await expect(stuck).rejects.toMatchObject({
      code: 'EDOC_READ_STUCK',
      context: { file: 'ventas-nombre-largo.csv', row: 3 },
    });
    await expect(stuck).rejects.toThrow(/ventas-nombre-largo\.csv: mapping row 3 took longer than/);
    // silent for 3 s, seen at the next tick (a quarter of a second)
    expect(Date.now() - started).toBeLessThan(12_000);
    await expect(countDocuments(open)).rejects.toMatchObject({
      code: 'EDOC_READ_WORKER',
      context: { again: true },
    });
    // the new worker reads it whole, and the next file too
    expect(await countDocuments(await reader.read(csvReadJob(beside, mapping), []))).toBe(1_500);
    const next = path.join(dir, 'ventas-siguientes.csv');
    writeSales(next, 990300001, 2);
    expect(await countDocuments(await reader.read(csvReadJob(next, mapping), []))).toBe(2);
    const line = logLines(dir).find((l) => l.code === 'EDOC_READ_STUCK');
    expect(line).toMatchObject({
      level: 'error',
      file: 'ventas-nombre-largo.csv',
      row: 3,
      reads: 2,
    });
  }, 60_000);

  it('a worker stuck outside any row fails every read it had, and the next file gets a new worker', async () => {
    const dir = tempDir();
    // a stand-in that speaks the worker's messages: a read of a path with `ok` is empty, any other blocks its thread for good
    const script = path.join(dir, 'blocking-worker.mjs');
    fs.writeFileSync(
      script,
      `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (m) => {
  if (m.type === 'ping') parentPort.postMessage({ type: 'pong', id: 0 });
  if (m.type !== 'read') return;
  if (m.job.path.includes('ok')) {
    parentPort.postMessage({ type: 'opened', id: m.id, details: { format: 'jsonl', encoding: 'utf-8', header: null } });
    parentPort.postMessage({ type: 'done', id: m.id, sha256: 'x' });
  } else for (;;);
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
    const file = path.join(dir, 'blocks.jsonl');
    fs.writeFileSync(file, '{}\n');
    const job: ReadJob = {
      ...csvReadJob(file, await loadMapping(writeBacktrackingMapping(dir))),
      mapping: undefined,
    };
    delete job.mapping;
    await expect(reader.read(job, [])).rejects.toMatchObject({
      code: 'EDOC_READ_WORKER',
      message: expect.stringMatching(
        /did not answer for more than 1 s while it read the file and was replaced/,
      ),
    });
    const ok = path.join(dir, 'ok.jsonl');
    fs.writeFileSync(ok, '{}\n');
    expect(await countDocuments(await reader.read({ ...job, path: ok }, []))).toBe(0);
    expect(logLines(dir).find((l) => l.code === 'EDOC_READ_WORKER')).toMatchObject({
      level: 'error',
      reads: 1,
      msg: expect.stringMatching(/did not answer for more than 1 s: the files it was reading fail/),
    });
  }, 60_000);

  it('this thread paused three times longer than stuckAfter (a stopped process) fails nothing', async () => {
    const dir = tempDir();
    const mapping = await loadMapping(writeBacktrackingMapping(dir));
    // 2 s, not 1: a loaded machine must not starve the honest worker into a false stuck
    const reader = await builtReader(dir, 2_000);
    const file = path.join(dir, 'ventas-grandes.csv');
    writeSales(file, 990100001, 1_500);
    const open = await reader.read(csvReadJob(file, mapping), []);
    await new Promise((r) => setTimeout(r, 300));
    // the main thread blocked for 6 s: no tick, no message taken; the worker answers as soon as asked again
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6_000);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await countDocuments(open)).toBe(1_500);
    expect(logLines(dir).filter((l) => l.code !== undefined)).toEqual([]);
  }, 60_000);

  it('a new worker slower to load than stuckAfter (a loaded machine) is not taken for stuck: its first read ends whole', async () => {
    const dir = tempDir();
    // a stand-in that spends 2.5 s loading (stuckAfter is 1 s), then says so and reads for real
    const script = path.join(dir, 'slow-loading-worker.mjs');
    fs.writeFileSync(
      script,
      `import { parentPort } from 'node:worker_threads';
import { readDocumentBatches } from '${pathToFileURL(path.join(ROOT, 'dist/intake/intake-documents.js')).href}';
import { SecretScrubber } from '${pathToFileURL(path.join(ROOT, 'dist/log/secrets.js')).href}';
const until = Date.now() + 2_500;
while (Date.now() < until);
parentPort.on('message', async (m) => {
  if (m.type === 'ping') parentPort.postMessage({ type: 'pong', id: 0 });
  if (m.type !== 'read') return;
  const read = await readDocumentBatches(m.job, new SecretScrubber([]));
  parentPort.postMessage({ type: 'opened', id: m.id, details: read.details });
  for await (const docs of read.batches) parentPort.postMessage({ type: 'batch', id: m.id, docs });
  parentPort.postMessage({ type: 'done', id: m.id, sha256: read.sha256() });
});
parentPort.postMessage({ type: 'pong', id: 0 }); // loaded, as the real worker says
`,
    );
    const { IntakeReader: Reader } = await import('../../src/intake/intake-reader.js');
    const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'info' });
    closers.push(() => logger.close());
    const reader = new Reader(logger, { script: pathToFileURL(script), stuckAfterMs: () => 1_000 });
    closers.push(() => reader.close());
    const file = path.join(dir, 'ventas.csv');
    writeSales(file, 990100001, 3);
    const mapping = await loadMapping(writeBacktrackingMapping(dir));
    expect(await countDocuments(await reader.read(csvReadJob(file, mapping), []))).toBe(3);
    expect(logLines(dir).filter((l) => l.code !== undefined)).toEqual([]);
  }, 60_000);

  it('through intakeFile: the file read beside a stuck one leaves the ledger and comes back `again`; the stuck one is failed-read naming its row', async () => {
    const root = tempDir();
    const { config, inbox } = await invoiceIntakeConfig(root);
    // a stand-in worker: hashes for real; a read of `beside` hands over its first batch (the real read,
    // from the build) and waits; a read of `stuck` marks its row 7 (as the real worker does around a row) and blocks for good
    const script = path.join(root, 'marking-worker.mjs');
    fs.writeFileSync(
      script,
      `import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { readDocumentBatches } from '${pathToFileURL(path.join(ROOT, 'dist/intake/intake-documents.js')).href}';
import { SecretScrubber } from '${pathToFileURL(path.join(ROOT, 'dist/log/secrets.js')).href}';
const marks = new Int32Array(workerData.marks);
parentPort.on('message', async (m) => {
  if (m.type === 'ping') parentPort.postMessage({ type: 'pong', id: 0 });
  if (m.type === 'hash') {
    const st = statSync(m.path);
    const sha256 = createHash('sha256').update(readFileSync(m.path)).digest('hex');
    parentPort.postMessage({ type: 'hashed', id: m.id, hash: { sha256, size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino } });
  }
  if (m.type !== 'read') return;
  if (m.job.path.includes('beside')) {
    // the real read, from the build: one batch handed over, then nothing more
    const read = await readDocumentBatches(m.job, new SecretScrubber([]));
    parentPort.postMessage({ type: 'opened', id: m.id, details: read.details });
    for await (const docs of read.batches) {
      parentPort.postMessage({ type: 'batch', id: m.id, docs });
      break;
    }
  } else {
    Atomics.store(marks, 1, 7);
    Atomics.store(marks, 0, m.id);
    for (;;);
  }
});
parentPort.postMessage({ type: 'pong', id: 0 }); // loaded, as the real worker says
`,
    );
    const ledger = Ledger.open(config.paths.state);
    closers.push(() => ledger.close());
    const { IntakeReader: Reader } = await import('../../src/intake/intake-reader.js');
    const logger = createLogger({ file: path.join(root, 'edoc-bridge.log'), level: 'info' });
    closers.push(() => logger.close());
    const reader = new Reader(logger, { script: pathToFileURL(script), stuckAfterMs: () => 1_000 });
    closers.push(() => reader.close());
    const ctx = testIntakeContext({ ledger, config, logger, reader });
    const company = config.companies[0];
    const beside = path.join(inbox, 'beside.jsonl');
    fs.writeFileSync(beside, `${JSON.stringify(invoice(990000001))}\n`);
    const stuck = path.join(inbox, 'stuck.jsonl');
    fs.writeFileSync(stuck, `${JSON.stringify(invoice(990000009))}\n`);
    const besideTaken = intakeFile(ctx, { path: beside, kind: 'invoice', company });
    // the beside file's first batch is stored before the stuck file is handed over
    for (let i = 0; i < 250 && (await ledger.openFiles()).length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    const stuckTaken = await intakeFile(ctx, { path: stuck, kind: 'invoice', company });
    expect(stuckTaken.outcome).toBe('failed-read');
    const row = await ledger.getFile(stuckTaken.fileId ?? -1);
    expect(row?.error).toMatchObject({ code: 'EDOC_READ_STUCK', rows: [7] });
    expect(row?.error?.message).toMatch(/^stuck\.jsonl: mapping row 7 took longer than 1 s/);
    expect(await besideTaken).toEqual({ outcome: 'again' });
    // nothing of it stays: its row and its stored documents left with the dropped intake
    expect(await ledger.filesMatching('beside.jsonl')).toEqual([]);
    expect(await ledger.claimDue('main', Date.now() + 60_000, 10)).toEqual([]);
  }, 60_000);

  it('the intake queue takes a file that came back `again` once more', async () => {
    const dir = tempDir();
    const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'info' });
    closers.push(() => logger.close());
    const seen: string[] = [];
    const queue = new IntakeQueue(
      logger,
      async (file) => {
        seen.push(file.path);
        return { outcome: seen.length === 1 ? 'again' : 'read' };
      },
      4,
    );
    const file: PipelineFile = {
      path: path.join(dir, 'a.jsonl'),
      kind: 'invoice',
      company: 'main',
    };
    await queue.offer(file);
    await queue.idle();
    expect(seen).toEqual([file.path, file.path]);
  });
});
