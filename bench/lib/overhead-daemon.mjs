// The overhead scenario's two sides, shared by bench/scenarios/overhead.mjs and the overhead tools
// (overhead-phases.mjs, overhead-threads.mjs): a fresh emulator with no latency and no cap, and either
// the daemon on a project whose company sends at concurrency 8 and a rate that never binds, or the bare
// undici loop (bench/lib/bare-loop.mjs) sending the same requests.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIRST_NUMBER } from './documents.mjs';
import { startBenchEmulator } from './emulator.mjs';
import { DaemonProcess, Project } from './project.mjs';
import { ROOT } from './util.mjs';

export const CONCURRENCY = 8;
export const RATE = 100_000;

/** `fn({ emulator, project, daemon })` with the daemon started; all of it stopped and removed after. */
export async function withOverheadDaemon(fn, daemonOptions) {
  const emulator = await startBenchEmulator({});
  const project = await Project.create({ baseUrl: emulator.url, rate: { requestsPerSecond: RATE, concurrency: CONCURRENCY } });
  let daemon;
  try {
    daemon = await DaemonProcess.start(project, daemonOptions);
    return await fn({ emulator, project, daemon });
  } finally {
    await daemon?.stop();
    await emulator.close();
    await project.remove();
  }
}

/**
 * The bare loop against `emulator`: COUNT requests numbered from FIRST_NUMBER, after as many untimed
 * ones numbered from `warmFirst` when given. Resolves with its output ({ ms, statuses, cpuMs }).
 */
export async function runBareLoop(emulator, count, warmFirst) {
  const args = [join(ROOT, 'bench/lib/bare-loop.mjs'), emulator.url, String(count), String(CONCURRENCY), String(FIRST_NUMBER)];
  if (warmFirst !== undefined) args.push(String(warmFirst));
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
  return JSON.parse(stdout);
}

/**
 * COUNT requests through an emulator of this process, then closed: the emulator's code compiled, as it
 * is from the second run of a bench on (a tool that measures one run per process starts with this).
 */
export async function warmEmulator(count) {
  const emulator = await startBenchEmulator({});
  try {
    await runBareLoop(emulator, count);
  } finally {
    await emulator.close();
  }
}
