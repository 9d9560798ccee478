// The intake of a burst alone: the many-companies scenario's files (one JSONL file of 40 invoices per
// company, all renamed in at once) taken into a daemon whose server holds every answer back a minute, so
// the sends wait and what the daemon does is take the files in. Figures per run: renames → the last
// `file read` (s), first `file taken` → last `file read` (s), and the daemon's CPU (every thread) per
// 1,000 documents over renames → last `file read`, in all and by thread (the intake worker is `WorkerThread`,
// the main thread `node-MainThread`); medians at the end. EDOC_BENCH_CPU_PROF=DIR writes
// the daemon's CPU profiles there (main thread and intake worker).
//
//   sh bench/private-build.sh DIR && EDOC_BENCH_CODE=DIR node bench/intake-burst.mjs [companies] [runs]
import { daemonSide, startRateServer } from './lib/companies-side.mjs';
import { log, median } from './lib/util.mjs';

const companies = Number(process.argv[2] ?? 200);
const runs = Number(process.argv[3] ?? 3);
const cfg = { companies, perCompany: 40, rps: 10, concurrency: 2, latencyMs: 100 };
const server = await startRateServer(cfg);
const out = [];
try {
  for (let r = 0; r < runs; r++) {
    const cpuProfDir = process.env.EDOC_BENCH_CPU_PROF;
    const x = await daemonSide(server, cfg, {
      intakeOnly: true,
      ...(cpuProfDir && { cpuProfDir }),
    });
    log(
      `intake burst ${companies} × 40 run ${r + 1}: renames → last read ${x.renamesToReadS} s, ` +
        `taken in over ${x.takenInS} s, CPU ${x.cpuMsPer1000} ms per 1,000 ` +
        `(by thread: ${JSON.stringify(x.threadMsPer1000)})`,
    );
    out.push(x);
  }
} finally {
  await server.close();
}
const m = (f) => median(out.map(f));
console.log(
  JSON.stringify({
    companies,
    runs,
    renamesToReadS: m((x) => x.renamesToReadS),
    takenInS: m((x) => x.takenInS),
    cpuMsPer1000: m((x) => x.cpuMsPer1000),
    workerMsPer1000: m((x) => x.threadMsPer1000.WorkerThread ?? 0),
    mainMsPer1000: m((x) => x.threadMsPer1000['node-MainThread'] ?? 0),
  }),
);
