// 3. Memory: peak RSS (VmHWM of /proc/<pid>/status) of the daemon process while it takes a
// 10,000-row and a 1,000,000-row sales CSV export: from spawn until the `file read` log line,
// i.e. hash → read → map → validate → every document committed to the ledger, with the company's
// sender submitting to a zero-latency emulator at the same time (100/s, concurrency 4) and the
// partial result.json rewritten as documents finish. Submitting all 333,334 documents of the big
// file would take minutes, so the daemon is stopped once the file is read. Beside it, the reader
// alone (bench/csv-memory.mjs: CSV reader + mapping in a fresh process), and the daemon once more per
// size with its heap capped (HEAP_CAP), as a service unit can run it through NODE_OPTIONS.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readerPeak } from '../csv-memory.mjs';
import { startBenchEmulator } from '../lib/emulator.mjs';
import { DaemonProcess, Project } from '../lib/project.mjs';
import { writeSalesCsv } from '../lib/sales-csv.mjs';
import { lineTime, log, median, round, sleep } from '../lib/util.mjs';

/** The daemon with its heap capped, as a service unit can run it (NODE_OPTIONS). */
export const HEAP_CAP = ['--max-old-space-size=96'];

async function daemonPeak(file, name, nodeArgs = []) {
  const emulator = await startBenchEmulator({});
  const project = await Project.create({
    baseUrl: emulator.url,
    rate: { requestsPerSecond: 100, concurrency: 4 },
  });
  let daemon;
  try {
    daemon = await DaemonProcess.start(project, { nodeArgs });
    await sleep(300);
    const idleKb = daemon.memory()?.hwmKb;
    const { rename, link } = await import('node:fs/promises');
    const part = path.join(project.inbox('invoice'), `${name}.part`);
    await link(file, part); // the big file is not copied: a hard link renamed in
    await rename(part, path.join(project.inbox('invoice'), name));
    const read = await daemon.waitForLog(
      (l) => l.msg === 'file read' || l.msg === 'file could not be read',
      900_000,
      100,
    );
    const peak = daemon.memory();
    const taken = daemon.lines().find((l) => l.msg === 'file taken');
    return {
      documents: read.documents,
      idleHwmMb: round(idleKb / 1024, 1),
      peakHwmMb: round(Math.max(peak?.hwmKb ?? 0, daemon.peakHwmKb) / 1024, 1),
      intakeSeconds: taken ? round((lineTime(read) - lineTime(taken)) / 1000, 1) : null,
      sent: emulator.trace.answers,
    };
  } finally {
    await daemon?.stop('SIGKILL');
    await emulator.close();
    await project.remove();
  }
}

export async function memory({ runs, quick }) {
  const sizes = quick ? [10_000, 100_000] : [10_000, 1_000_000];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-csv-'));
  const out = [];
  try {
    for (const rows of sizes) {
      const file = path.join(dir, `sales-${rows}.csv`);
      await writeSalesCsv(file, rows);
      const mb = (await stat(file)).size / 1e6;
      // The big file: one daemon run (its intake takes minutes here); the small one: `runs` runs.
      const n = rows >= 1_000_000 ? 1 : runs;
      const daemonRuns = [];
      for (let r = 0; r < n; r++) {
        daemonRuns.push(await daemonPeak(file, `sales-${rows}-${r}.csv`));
        log(`memory ${rows} rows daemon run ${r + 1}: ${JSON.stringify(daemonRuns.at(-1))}`);
      }
      const capped = await daemonPeak(file, `sales-${rows}-capped.csv`, HEAP_CAP);
      log(`memory ${rows} rows daemon with ${HEAP_CAP.join(' ')}: ${JSON.stringify(capped)}`);
      const reader = readerPeak(file);
      log(`memory ${rows} rows reader alone: ${JSON.stringify(reader)}`);
      out.push({
        rows,
        fileMB: round(mb, 1),
        documents: daemonRuns[0].documents,
        daemonRuns: daemonRuns.length,
        daemonPeakMb: median(daemonRuns.map((x) => x.peakHwmMb)),
        daemonIdleMb: median(daemonRuns.map((x) => x.idleHwmMb)),
        intakeSeconds: median(daemonRuns.map((x) => x.intakeSeconds)),
        cappedPeakMb: capped.peakHwmMb,
        cappedIntakeSeconds: capped.intakeSeconds,
        readerPeakMb: round(reader.maxRssKb / 1024, 1),
        readerSeconds: round(reader.ms / 1000, 1),
        runs: daemonRuns,
      });
      await rm(file);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const [small, big] = out;
  return {
    sizes: out,
    daemonRatio: round(big.daemonPeakMb / small.daemonPeakMb, 2),
    readerRatio: round(big.readerPeakMb / small.readerPeakMb, 2),
    heapCap: HEAP_CAP.join(' '),
    cappedRatio: round(big.cappedPeakMb / small.cappedPeakMb, 2),
  };
}
