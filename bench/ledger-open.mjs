// Opening a large SQLite ledger with work in flight, as a start does before it sends: `Ledger.open`,
// then `sendingAtStart()` (the documents a crashed run left `sending`) and `openFiles()` (the files
// still to finish). The ledger is the start-up scenario's (bench/scenarios/startup.mjs `buildLedger`:
// files of 500 documents, all done but the last two, which hold the pending ones), N documents in
// all (default 200,000), then 20 of the pending ones claimed and marked sending through the ledger's
// API. It is opened RUNS times (default 5), each a fresh `Ledger.open` of the closed ledger, and the
// time from `Ledger.open` to both answers is printed (median, min, max) beside the target of 500 ms
// for 200,000 documents. The bench checks the answers (20 sending, 2 open files) and exits 1 when
// they are wrong. Nothing is recovered, so every open finds the same ledger.
//
//   npm run build && node bench/ledger-open.mjs [documents] [runs]   (EDOC_BENCH_CODE selects the build)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildLedger } from './scenarios/startup.mjs';
import { dist, median, round } from './lib/util.mjs';

const [countText, runsText] = process.argv.slice(2);
const n = Number(countText ?? 200_000);
const runs = Number(runsText ?? 5);
const SENDING = 20;
const OPEN_FILES = 2; // buildLedger's
const TARGET_MS = 500;
const { Ledger } = await dist('ledger/ledger.js');

const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-bench-ledger-open-'));
try {
  const built = performance.now();
  await buildLedger(dir, n);
  const ledger = Ledger.open(dir);
  const now = Date.now();
  await ledger.markSending(
    (await ledger.claimDue('main', now, SENDING)).map((d) => d.id),
    now,
  );
  await ledger.close();
  console.log(
    `ledger of ${n} documents (${SENDING} sending) built in ${((performance.now() - built) / 1000).toFixed(1)} s`,
  );

  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const again = Ledger.open(dir);
    const left = await again.sendingAtStart();
    const files = await again.openFiles();
    const ms = performance.now() - t0;
    await again.close();
    if (left.length !== SENDING || files.length !== OPEN_FILES) {
      console.error(`run ${r + 1}: ${left.length} sending, ${files.length} open files`);
      process.exitCode = 1;
    }
    times.push(ms);
    console.log(`run ${r + 1}: ${round(ms, 1)} ms`);
  }
  const mid = median(times);
  console.log(
    `open + sendingAtStart + openFiles, ${n} documents: median ${round(mid, 1)} ms ` +
      `(${round(Math.min(...times), 1)}–${round(Math.max(...times), 1)}), target < ${TARGET_MS} ms: ` +
      (mid < TARGET_MS ? 'met' : 'MISSED'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
