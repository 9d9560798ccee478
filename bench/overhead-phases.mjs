// The overhead scenario's phases, one daemon run after one bare-loop run, N times:
//   node bench/overhead-phases.mjs [RUNS] [COUNT]   (EDOC_BENCH_CODE selects the build)
// intake = drop → first request's arrival at the emulator; `file read` = drop → the daemon's
// `file read` log line; cpuMs = the daemon's CPU time (user + system) over the same span, cpuIntakeMs
// up to `file read` (polled, so approximate), mainCpu… the same of the daemon's main thread alone; sending = first → last arrival; end = last arrival → `file complete`.
import { invoicesJsonl } from './lib/documents.mjs';
import { startBenchEmulator } from './lib/emulator.mjs';
import { runBareLoop, withOverheadDaemon } from './lib/overhead-daemon.mjs';
import { lineTime, median, procCpuMs, round } from './lib/util.mjs';

const [runsText, countText] = process.argv.slice(2);
const runs = Number(runsText ?? 3);
const n = Number(countText ?? 5000);
const text = invoicesJsonl(n);

async function bare() {
  const emulator = await startBenchEmulator({});
  try {
    return (await runBareLoop(emulator, n)).ms;
  } finally {
    await emulator.close();
  }
}

function daemonRun() {
  return withOverheadDaemon(async ({ emulator, project, daemon }) => {
    // the whole process (every thread), and its main thread alone (the intake worker reads on another)
    const cpu = () => procCpuMs(daemon.pid);
    const cpuMain = () => procCpuMs(daemon.pid, daemon.pid);
    const [cpuBefore, mainBefore] = [cpu(), cpuMain()];
    const dropped = await project.dropRenamed('invoice', 'overhead.jsonl', text);
    const read = await daemon.waitForLog((l) => l.msg === 'file read', 600_000, 2);
    const [cpuRead, mainRead] = [cpu() - cpuBefore, cpuMain() - mainBefore];
    const done = await daemon.waitForLog((l) => l.msg === 'file complete', 600_000);
    const [cpuMs, mainMs] = [cpu() - cpuBefore, cpuMain() - mainBefore];
    const t = emulator.trace;
    return {
      total: lineTime(done) - dropped,
      intake: t.firstArrival - dropped,
      fileRead: lineTime(read) - dropped,
      sending: t.lastArrival - t.firstArrival,
      end: lineTime(done) - t.lastArrival,
      cpuMs,
      cpuIntakeMs: cpuRead,
      mainCpuMs: mainMs,
      mainCpuIntakeMs: mainRead,
    };
  });
}

const rows = [];
for (let r = 0; r < runs; r++) {
  const b = await bare();
  const d = await daemonRun();
  const row = {
    ...Object.fromEntries(Object.entries(d).map(([k, v]) => [k, round(v, 0)])),
    bare: round(b, 0),
    ratio: round(b / d.total, 3),
  };
  rows.push(row);
  console.log(JSON.stringify(row));
}
const keys = Object.keys(rows[0]);
console.log(
  JSON.stringify({
    median: Object.fromEntries(keys.map((k) => [k, median(rows.map((x) => x[k]))])),
  }),
);
