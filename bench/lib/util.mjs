// Small helpers shared by the bench scenarios: statistics, waiting, the machine.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The code under test: this checkout's bin/ and dist/ (built by `npm run bench`), or a private
 * build in EDOC_BENCH_CODE (a folder with bin/, dist/ and a node_modules link) when others rebuild
 * dist/ while the bench runs.
 */
export const CODE = process.env.EDOC_BENCH_CODE ?? ROOT;
export const BIN = join(CODE, 'bin/edoc-bridge.js');

export function dist(rel) {
  return import(join(CODE, 'dist', rel));
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** `time(x)` of `before` and `after` in turn, `runs` times each (alternating): their medians (ms). */
export function alternating(runs, time, before, after) {
  const b = [];
  const a = [];
  for (let r = 0; r < runs; r++) {
    b.push(time(before));
    a.push(time(after));
  }
  return { before: median(b), after: median(a) };
}

export function round(x, digits = 2) {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Polls `check` every `everyMs` until it returns something other than undefined. */
export async function until(check, what, timeoutMs = 60_000, everyMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Colombia's calendar date (UTC−5), dd/MM/yyyy and yyyy-MM-dd. */
export function colombiaToday(now = Date.now()) {
  const iso = new Date(now - 5 * 3_600_000).toISOString().slice(0, 10);
  const [y, m, d] = iso.split('-');
  return { iso, erp: `${d}/${m}/${y}` };
}

export function machine() {
  const cpus = os.cpus();
  let load;
  try {
    load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  } catch {
    load = os.loadavg();
  }
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: load,
  };
}

/** Peak and current resident set of a process, from /proc/<pid>/status (kB). */
export function procMemory(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
    return { hwmKb: kb('VmHWM'), rssKb: kb('VmRSS') };
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system, ms) a process has used, every thread (`/proc/<pid>/stat`), or one thread
 * (`/proc/<pid>/task/<tid>/stat`; the main thread's id is the pid). 10 ms resolution.
 */
export function procCpuMs(pid, tid) {
  try {
    const stat = readFileSync(
      tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`,
      'utf8',
    );
    const [utime, stime] = stat
      .slice(stat.lastIndexOf(') ') + 2)
      .split(' ')
      .slice(11, 13)
      .map(Number);
    return (utime + stime) * 10;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) of a process's threads, summed by thread name (`/proc/<pid>/task/<tid>/comm`): Node names
 * its main thread `node-MainThread`, a worker thread `WorkerThread`, V8's helper threads `node-V8Worker`.
 */
export function threadCpuMs(pid) {
  const out = {};
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      out[name] = (out[name] ?? 0) + (procCpuMs(pid, tid) ?? 0);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** The 1-minute load average now. */
export function loadNow() {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return os.loadavg()[0];
  }
}

export function log(...parts) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${parts.join(' ')}\n`);
}

/** Epoch ms of an NDJSON log line (pino writes `time` as an ISO string here). */
export function lineTime(line) {
  return typeof line.time === 'number' ? line.time : Date.parse(line.time);
}
