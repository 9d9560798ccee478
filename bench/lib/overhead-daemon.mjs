// The overhead scenario's two sides, shared by bench/scenarios/overhead.mjs and the overhead tools
// (overhead-phases.mjs, overhead-threads.mjs): a fresh emulator with no latency and no cap, and either
// the daemon on a project whose company sends at concurrency 8 and a rate that never binds, or the bare
// undici loop (bench/lib/bare-loop.mjs) sending the same requests.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIRST_NUMBER, invoicesJsonl } from './documents.mjs';
import { startBenchEmulator } from './emulator.mjs';
import { DaemonProcess, Project } from './project.mjs';
import { ROOT } from './util.mjs';

export const CONCURRENCY = 8;
export const RATE = 100_000;
/** The warm-up's invoices and requests: numbered after the measured ones, within the emulator's range. */
export const WARM_FIRST_NUMBER = FIRST_NUMBER + 1_000_000;
/**
 * How often the harness reads the daemon's log. The times come from the lines themselves, so this sets
 * only the harness's CPU, which the daemon's side alone pays, beside its emulator: every 2 ms (until
 * 2026-11-26) it read the log and the daemon's /proc status ~500 times a second.
 */
export const POLL_MS = 20;

/** The daemon takes a file of COUNT other invoices first: its code compiled, as in a daemon that has run a while. */
export async function warmUpDaemon(project, daemon, count) {
  await project.dropRenamed('invoice', 'warm-up.jsonl', invoicesJsonl(count, WARM_FIRST_NUMBER));
  await daemon.waitForLog(
    (l) => l.msg === 'file complete' && l.file === 'warm-up.jsonl',
    600_000,
    POLL_MS,
  );
}

/** `fn({ emulator, project, daemon })` with the daemon started; all of it stopped and removed after. */
export async function withOverheadDaemon(fn, daemonOptions) {
  const emulator = await startBenchEmulator({});
  const project = await Project.create({
    baseUrl: emulator.url,
    rate: { requestsPerSecond: RATE, concurrency: CONCURRENCY },
  });
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
  const args = [
    join(ROOT, 'bench/lib/bare-loop.mjs'),
    emulator.url,
    String(count),
    String(CONCURRENCY),
    String(FIRST_NUMBER),
  ];
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
