// The overhead scenario's daemon run, its CPU split by thread and by phase, N runs (one JSON line each,
// then the medians):
//   node bench/overhead-threads.mjs [RUNS] [COUNT] [--warm]          (EDOC_BENCH_CODE selects the build)
// Phases: intake = drop → the `file read` line; sending = from there to `file complete`. Threads:
//   main     the daemon's main thread (ledger, HTTP client, reports, log)
//   worker   the intake worker: the thread other than main with the most CPU in the intake phase
//   helpers  every other thread: V8's platform threads (its optimising compiler and the GC's helpers)
//            and libuv's pool (file reads, hashing)
//   bench    this process over the measured span: the emulator, and the harness reading the daemon's log
//   emulator this process from the first measured request's arrival to the last one's answer
// The emulator's code is compiled first (warmEmulator), as from a bench's second run on.
// --warm: the daemon first takes a file of as many other invoices (its code compiled, as in a daemon
// that has run for a while), and the same emulator answers both.
import { readdirSync } from 'node:fs';
import { invoicesJsonl } from './lib/documents.mjs';
import { emulatorCpuMeter } from './lib/emulator.mjs';
import { POLL_MS, warmEmulator, warmUpDaemon, withOverheadDaemon } from './lib/overhead-daemon.mjs';
import { lineTime, median, procCpuMs } from './lib/util.mjs';

const args = process.argv.slice(2);
const warm = args.includes('--warm');
const [runsText, countText] = args.filter((a) => !a.startsWith('--'));
const runs = Number(runsText ?? 3);
const n = Number(countText ?? 5000);
const text = invoicesJsonl(n);

/** CPU ms of every thread of `pid` now, by thread id. */
function threads(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const ms = procCpuMs(pid, tid);
    if (ms !== undefined) out.set(tid, ms); // undefined: the thread ended
  }
  return out;
}

const delta = (after, before) =>
  new Map([...after].map(([t, ms]) => [t, ms - (before.get(t) ?? 0)]));
const sum = (m, keep = () => true) =>
  [...m].filter(([t]) => keep(t)).reduce((a, [, ms]) => a + ms, 0);

function once() {
  return withOverheadDaemon(async ({ emulator, project, daemon }) => {
    if (warm) await warmUpDaemon(project, daemon, n);
    const emulatorMs = emulatorCpuMeter(emulator.trace, warm ? n : 0, n);
    const pid = String(daemon.pid);
    const t0 = threads(pid);
    const droppedAt = await project.dropRenamed('invoice', 'overhead.jsonl', text);
    const bench0 = process.cpuUsage();
    const read = await daemon.waitForLog(
      (l) => l.msg === 'file read' && l.file === 'overhead.jsonl',
      600_000,
      POLL_MS,
    );
    const t1 = threads(pid);
    const done = await daemon.waitForLog(
      (l) => l.msg === 'file complete' && l.file === 'overhead.jsonl',
      600_000,
      POLL_MS,
    );
    const t2 = threads(pid);
    const bench = process.cpuUsage(bench0);
    const [intake, sending] = [delta(t1, t0), delta(t2, t1)];
    const worker = [...intake].filter(([t]) => t !== pid).sort((a, b) => b[1] - a[1])[0]?.[0];
    const group = (m) => ({
      main: m.get(pid) ?? 0,
      worker: m.get(worker) ?? 0,
      helpers: sum(m, (t) => t !== pid && t !== worker),
    });
    return {
      ms: lineTime(done) - droppedAt,
      intakeMs: lineTime(read) - droppedAt,
      intake: group(intake),
      sending: group(sending),
      cpuMs: sum(intake) + sum(sending),
      benchCpuMs: Math.round((bench.user + bench.system) / 1000),
      emulatorCpuMs: Math.round(emulatorMs()),
    };
  });
}

await warmEmulator(n);
const rows = [];
for (let r = 0; r < runs; r++) {
  const row = await once();
  rows.push(row);
  console.log(JSON.stringify(row));
}
const pick = (f) => median(rows.map(f));
console.log(
  JSON.stringify({
    median: {
      ms: pick((r) => r.ms),
      intakeMs: pick((r) => r.intakeMs),
      cpuMs: pick((r) => r.cpuMs),
      benchCpuMs: pick((r) => r.benchCpuMs),
      emulatorCpuMs: pick((r) => r.emulatorCpuMs),
      intake: {
        main: pick((r) => r.intake.main),
        worker: pick((r) => r.intake.worker),
        helpers: pick((r) => r.intake.helpers),
      },
      sending: {
        main: pick((r) => r.sending.main),
        worker: pick((r) => r.sending.worker),
        helpers: pick((r) => r.sending.helpers),
      },
    },
    documents: n,
    warm,
  }),
);
