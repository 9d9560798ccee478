// 2. Own overhead: ~5,000 JSONL invoices end to end through the daemon (file renamed into the
// inbox → the `file complete` log line, written once result.json is final and the file archived)
// against the emulator with no latency and no cap, ÷ a bare undici loop sending the same requests
// at the same concurrency (bench/lib/bare-loop.mjs). Each side gets a fresh emulator; the two
// alternate within every run.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIRST_NUMBER, invoicesJsonl } from '../lib/documents.mjs';
import { startBenchEmulator } from '../lib/emulator.mjs';
import { DaemonProcess, Project } from '../lib/project.mjs';
import { lineTime, loadNow, log, median, procCpuMs, ROOT, round } from '../lib/util.mjs';

const run = promisify(execFile);
const CONCURRENCY = 8;
const RATE = 100_000;

async function daemonRun(n, text) {
  const emulator = await startBenchEmulator({});
  const project = await Project.create({ baseUrl: emulator.url, rate: { requestsPerSecond: RATE, concurrency: CONCURRENCY } });
  let daemon;
  try {
    daemon = await DaemonProcess.start(project);
    // the daemon's CPU over drop → `file complete`: every thread (the intake worker's too), and the main thread alone
    const pid = daemon.pid;
    const [cpuBefore, mainBefore] = [procCpuMs(pid), procCpuMs(pid, pid)];
    const load = loadNow();
    const droppedAt = await project.dropRenamed('invoice', 'overhead.jsonl', text);
    const done = await daemon.waitForLog((l) => l.msg === 'file complete', 600_000, 2);
    const [cpuMs, mainCpuMs] = [procCpuMs(pid) - cpuBefore, procCpuMs(pid, pid) - mainBefore];
    const result = await project.result('invoice', 'overhead.jsonl');
    const seconds = (lineTime(done) - droppedAt) / 1000;
    return { seconds: round(seconds, 3), docsPerSecond: round(n / seconds, 1), accepted: result?.counts?.accepted,
      cpuMsPer1000: round((cpuMs / n) * 1000, 0), mainCpuMsPer1000: round((mainCpuMs / n) * 1000, 0), load,
      finishedAt: result?.finishedAt };
  } finally {
    await daemon?.stop();
    await emulator.close();
    await project.remove();
  }
}

async function bareRun(n) {
  const emulator = await startBenchEmulator({});
  try {
    const { stdout } = await run(process.execPath, [join(ROOT, 'bench/lib/bare-loop.mjs'), emulator.url, String(n),
      String(CONCURRENCY), String(FIRST_NUMBER)], { maxBuffer: 1 << 20 });
    const out = JSON.parse(stdout);
    return { seconds: round(out.ms / 1000, 3), docsPerSecond: round(n / (out.ms / 1000), 1), statuses: out.statuses,
      cpuMsPer1000: round((out.cpuMs / n) * 1000, 0) };
  } finally {
    await emulator.close();
  }
}

export async function overhead({ runs, quick }) {
  const n = quick ? 1000 : 5000;
  const text = invoicesJsonl(n);
  const pairs = [];
  for (let r = 0; r < runs; r++) {
    const bare = r % 2 === 0 ? await bareRun(n) : undefined;
    const daemon = await daemonRun(n, text);
    const pair = { daemon, bare: bare ?? await bareRun(n) };
    pair.ratio = round(pair.daemon.docsPerSecond / pair.bare.docsPerSecond, 3);
    pairs.push(pair);
    log(`overhead run ${r + 1}: daemon ${daemon.docsPerSecond} docs/s (accepted ${daemon.accepted}; CPU ms per 1,000 documents: `
      + `${daemon.cpuMsPer1000}, main thread ${daemon.mainCpuMsPer1000}), bare ${pair.bare.docsPerSecond} docs/s `
      + `(CPU ${pair.bare.cpuMsPer1000} ms per 1,000), ratio ${pair.ratio}, load ${daemon.load}`);
  }
  return {
    documents: n, concurrency: CONCURRENCY, rate: RATE,
    daemonDocsPerSecond: median(pairs.map((p) => p.daemon.docsPerSecond)),
    bareDocsPerSecond: median(pairs.map((p) => p.bare.docsPerSecond)),
    ratio: median(pairs.map((p) => p.ratio)),
    daemonCpuMsPer1000: median(pairs.map((p) => p.daemon.cpuMsPer1000)),
    daemonMainCpuMsPer1000: median(pairs.map((p) => p.daemon.mainCpuMsPer1000)),
    bareCpuMsPer1000: median(pairs.map((p) => p.bare.cpuMsPer1000)),
    runs: pairs,
  };
}
