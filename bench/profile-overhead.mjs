// One overhead-scenario daemon run with the daemon under `node --cpu-prof` (the profile lands in
// the folder given): node bench/profile-overhead.mjs OUT_DIR [COUNT]
// Use with EDOC_BENCH_CODE to profile another build. Summarise with bench/profile-summary.mjs.
import { mkdir } from 'node:fs/promises';
import { invoicesJsonl } from './lib/documents.mjs';
import { startBenchEmulator } from './lib/emulator.mjs';
import { DaemonProcess, Project } from './lib/project.mjs';
import { lineTime } from './lib/util.mjs';

const [outDir, countText] = process.argv.slice(2);
const n = Number(countText ?? 5000);
await mkdir(outDir, { recursive: true });
const emulator = await startBenchEmulator({});
const project = await Project.create({
  baseUrl: emulator.url,
  rate: { requestsPerSecond: 100_000, concurrency: 8 },
});
let daemon;
try {
  daemon = await DaemonProcess.start(project, {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${outDir}`, '--cpu-prof-interval=200'],
  });
  const droppedAt = await project.dropRenamed('invoice', 'overhead.jsonl', invoicesJsonl(n));
  const done = await daemon.waitForLog((l) => l.msg === 'file complete', 600_000);
  const seconds = (lineTime(done) - droppedAt) / 1000;
  console.log(JSON.stringify({ documents: n, seconds, docsPerSecond: Math.round(n / seconds) }));
} finally {
  await daemon?.stop();
  await emulator.close();
  await project.remove();
}
