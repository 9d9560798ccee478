// 2. Own overhead: ~5,000 JSONL invoices end to end through the daemon (file renamed into the
// inbox → the `file complete` log line, written once result.json is final and the file archived)
// against the emulator with no latency and no cap, ÷ a bare undici loop sending the same requests
// at the same concurrency (bench/lib/bare-loop.mjs). Each side gets a fresh emulator; the two
// alternate within every run. That is the figure: both processes cold, so it counts V8 compiling
// each side's code (the daemon has far more of it) within the 1-3 s measured.
// "warm": the same, after each side did the same work once in the same process against the same
// emulator (the daemon took one file of as many other invoices; the bare loop sent as many other
// requests): a daemon that has run for a while. Both record the emulator's CPU over the same span on each
// side (the measured requests' first arrival to their last answer) and the cores all processes kept busy
// over the measured span, so a run can be read against the machine's cores.
import os from 'node:os';
import { invoicesJsonl } from '../lib/documents.mjs';
import { emulatorCpuMeter, startBenchEmulator } from '../lib/emulator.mjs';
import {
  CONCURRENCY,
  POLL_MS,
  RATE,
  runBareLoop,
  WARM_FIRST_NUMBER,
  warmUpDaemon,
  withOverheadDaemon,
} from '../lib/overhead-daemon.mjs';
import { lineTime, loadNow, log, median, procCpuMs, round } from '../lib/util.mjs';

/** CPU ms of this (the bench's) process: the emulator and the harness. */
function benchCpuMs(since) {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

async function daemonRun(n, text, warm) {
  return withOverheadDaemon(async ({ emulator, project, daemon }) => {
    if (warm) await warmUpDaemon(project, daemon, n);
    const emulatorMs = emulatorCpuMeter(emulator.trace, warm ? n : 0, n);
    // the daemon's CPU over drop → `file complete`: every thread (the intake worker's too), and the main thread alone
    const pid = daemon.pid;
    const [cpuBefore, mainBefore] = [procCpuMs(pid), procCpuMs(pid, pid)];
    const load = loadNow();
    const droppedAt = await project.dropRenamed('invoice', 'overhead.jsonl', text);
    const benchBefore = process.cpuUsage();
    const done = await daemon.waitForLog(
      (l) => l.msg === 'file complete' && l.file === 'overhead.jsonl',
      600_000,
      POLL_MS,
    );
    const [cpuMs, mainCpuMs] = [procCpuMs(pid) - cpuBefore, procCpuMs(pid, pid) - mainBefore];
    const benchMs = benchCpuMs(benchBefore);
    const result = await project.result('invoice', 'overhead.jsonl');
    const seconds = (lineTime(done) - droppedAt) / 1000;
    return {
      seconds: round(seconds, 3),
      docsPerSecond: round(n / seconds, 1),
      accepted: result?.counts?.accepted,
      cpuMsPer1000: round((cpuMs / n) * 1000, 0),
      mainCpuMsPer1000: round((mainCpuMs / n) * 1000, 0),
      load,
      emulatorCpuMsPer1000: round((emulatorMs() / n) * 1000, 0),
      coresBusy: round((cpuMs + benchMs) / 1000 / seconds, 2),
      finishedAt: result?.finishedAt,
    };
  });
}

async function bareRun(n, warm) {
  const emulator = await startBenchEmulator({});
  try {
    const emulatorMs = emulatorCpuMeter(emulator.trace, warm ? n : 0, n);
    const out = await runBareLoop(emulator, n, warm ? WARM_FIRST_NUMBER : undefined);
    const benchMs = emulatorMs();
    const seconds = out.ms / 1000;
    return {
      seconds: round(seconds, 3),
      docsPerSecond: round(n / seconds, 1),
      statuses: out.statuses,
      cpuMsPer1000: round((out.cpuMs / n) * 1000, 0),
      emulatorCpuMsPer1000: round((benchMs / n) * 1000, 0),
      coresBusy: round((out.cpuMs + benchMs) / 1000 / seconds, 2),
    };
  } finally {
    await emulator.close();
  }
}

/** One side by side pair, the side that goes first alternating with the run. */
async function pairOf(n, text, warm, r) {
  const bare = r % 2 === 0 ? await bareRun(n, warm) : undefined;
  const daemon = await daemonRun(n, text, warm);
  const pair = { daemon, bare: bare ?? (await bareRun(n, warm)) };
  pair.ratio = round(pair.daemon.docsPerSecond / pair.bare.docsPerSecond, 3);
  log(
    `overhead run ${r + 1}${warm ? ' (warm)' : ''}: daemon ${daemon.docsPerSecond} docs/s (accepted ${daemon.accepted}; CPU ms per ` +
      `1,000 documents: ${daemon.cpuMsPer1000}, main thread ${daemon.mainCpuMsPer1000}, emulator ${daemon.emulatorCpuMsPer1000}; ` +
      `cores busy ${daemon.coresBusy}), bare ${pair.bare.docsPerSecond} docs/s (CPU ${pair.bare.cpuMsPer1000} ms per 1,000, emulator ` +
      `${pair.bare.emulatorCpuMsPer1000}; cores busy ${pair.bare.coresBusy}), ratio ${pair.ratio}, load ${daemon.load}`,
  );
  return pair;
}

/**
 * With every core busy the ratio is one of CPU: (bare loop + its emulator) ÷ (daemon + its emulator), per
 * document. `cpuRatio` is that quotient of the medians, and `daemonCpuBudgetMsPer1000` the daemon's CPU
 * per 1,000 documents (all threads) that would make it 0.6, its emulator's share as measured.
 */
function summary(pairs) {
  const m = (f) => median(pairs.map(f));
  const bareSide = m((p) => p.bare.cpuMsPer1000 + p.bare.emulatorCpuMsPer1000);
  const daemonEmulator = m((p) => p.daemon.emulatorCpuMsPer1000);
  return {
    cpuRatio: round(bareSide / m((p) => p.daemon.cpuMsPer1000 + p.daemon.emulatorCpuMsPer1000), 3),
    daemonCpuBudgetMsPer1000: round(bareSide / 0.6 - daemonEmulator, 0),
    daemonDocsPerSecond: m((p) => p.daemon.docsPerSecond),
    bareDocsPerSecond: m((p) => p.bare.docsPerSecond),
    ratio: m((p) => p.ratio),
    daemonCpuMsPer1000: m((p) => p.daemon.cpuMsPer1000),
    daemonMainCpuMsPer1000: m((p) => p.daemon.mainCpuMsPer1000),
    bareCpuMsPer1000: m((p) => p.bare.cpuMsPer1000),
    daemonEmulatorCpuMsPer1000: m((p) => p.daemon.emulatorCpuMsPer1000),
    bareEmulatorCpuMsPer1000: m((p) => p.bare.emulatorCpuMsPer1000),
    daemonCoresBusy: m((p) => p.daemon.coresBusy),
    bareCoresBusy: m((p) => p.bare.coresBusy),
  };
}

export async function overhead({ runs, quick }) {
  const n = quick ? 1000 : 5000;
  const text = invoicesJsonl(n);
  const pairs = [];
  const warmPairs = [];
  for (let r = 0; r < runs; r++) {
    pairs.push(await pairOf(n, text, false, r));
    warmPairs.push(await pairOf(n, text, true, r));
  }
  return {
    documents: n,
    concurrency: CONCURRENCY,
    rate: RATE,
    cores: os.cpus().length,
    ...summary(pairs),
    warm: { ...summary(warmPairs), runs: warmPairs },
    runs: pairs,
  };
}
