/**
 * The intake worker's turns (src/intake/worker-turns.ts) with files of one long batch: four exports of
 * 400 invoices of 100 lines each (40,000 rows, one batch of the 500 an insert takes, seconds to read;
 * with 40 lines a fast machine read them within the small files' own wait of ≈ 0.9 s) hold the four
 * turns when ten files of two invoices come. A first batch keeps its turn only up to
 * FIRST_SLICE_MS, and a turn handed on lets the worker's event loop turn (a small file's open answers),
 * so the small files are read while the big ones go on, not after them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { loadMapping } from '../../src/map/load-mapping.js';
import { createLogger } from '../../src/log/logger.js';
import { countDocuments, csvReadJob, invoicesJsonl, readJob } from '../helpers/intake-config.js';
import { BUILD_TIMEOUT_MS } from '../helpers/daemon-fixture.js';
import { buildCli, ROOT } from '../helpers/daemon-harness.js';
import { builtIntakeReader } from '../helpers/built-reader.js';
import { sale, toCsv } from '../map/helpers.js';

const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
beforeAll(buildCli, BUILD_TIMEOUT_MS);

it('four files of one long batch hold the turns: ten small files coming later are read while they go on', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edoc-turns-long-'));
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const logger = createLogger({ file: path.join(dir, 'edoc-bridge.log'), level: 'silent' });
  closers.push(() => logger.close());
  const reader = await builtIntakeReader(logger);
  closers.push(() => reader.close());
  reader.start();
  const mapping = await loadMapping(path.join(ROOT, 'config/mappings/sales.csv.yaml'));
  const bigs = Array.from({ length: 4 }, (_, b) => {
    const file = path.join(dir, `ventas${b}.csv`);
    const rows = [];
    for (let d = 0; d < 400; d++)
      for (let l = 1; l <= 100; l++) rows.push(sale(String(990800001 + d), String(l)));
    fs.writeFileSync(file, toCsv(rows));
    return file;
  });
  let bigsEnded = Infinity;
  const bigReads = bigs.map(async (file) => {
    const n = await countDocuments(await reader.read(csvReadJob(file, mapping), []));
    bigsEnded = Math.min(bigsEnded, performance.now());
    return n;
  });
  // the big reads are under way when the small ones come
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  let smallsEnded = 0;
  const smalls = Array.from({ length: 10 }, (_, i) =>
    readJob(invoicesJsonl(path.join(dir, `s${i}.jsonl`), 2)),
  );
  const counts = await Promise.all(
    smalls.map(async (job) => {
      const n = await countDocuments(await reader.read(job, []));
      smallsEnded = Math.max(smallsEnded, performance.now());
      return n;
    }),
  );
  expect(counts).toEqual(Array.from({ length: 10 }, () => 2));
  expect(await Promise.all(bigReads)).toEqual([400, 400, 400, 400]);
  // Read after the big files (their one batch each holding the turns to its end), the small ones would
  // end after them; read beside them, before the first of them ends.
  expect(smallsEnded).toBeLessThan(bigsEnded);
}, 240_000);
