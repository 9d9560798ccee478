// 7. Intake speed (issue 16 item 7): one sales CSV export (lib/sales-csv.mjs, 1,000,000 rows; --quick
// 100,000), read in the same run three ways, each in a fresh child process (bench/intake-speed.mjs):
// (A) csv-parse + iconv-lite alone, the floor; (B) our intake without the ledger (hash, read, map,
// validate); (C) our full intake into a real SQLite ledger. The three alternate within each run.
// With EDOC_BENCH_BEFORE=<a build folder with dist/ and node_modules> the same three run with that
// build too, alternating with this one, on the same file: before/after in one run.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeSalesCsv } from '../lib/sales-csv.mjs';
import { CODE, ROOT, log, median, round } from '../lib/util.mjs';

const MODES = ['floor', 'read', 'full'];

/** The V8 flag bin/edoc-bridge.js sets for the daemon: every mode runs with it, as the daemon would. */
const DAEMON_V8_FLAGS = ['--heap-growing-percent=20'];

/** One mode over `file` with the build in `code` (a folder with dist/ and node_modules), in a fresh process. */
export function intakeRun(mode, file, code = CODE, nodeArgs = DAEMON_V8_FLAGS) {
  const out = execFileSync(process.execPath, [...nodeArgs, path.join(ROOT, 'bench/intake-speed.mjs'), '--child', mode, file, code],
    { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out);
}

export async function intake({ runs, quick, rows: asked }) {
  const rows = asked ?? (quick ? 100_000 : 1_000_000);
  const builds = [['this', CODE]];
  if (process.env.EDOC_BENCH_BEFORE) builds.unshift(['before', process.env.EDOC_BENCH_BEFORE]);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-intake-'));
  const raw = Object.fromEntries(builds.map(([name]) => [name, Object.fromEntries(MODES.map((m) => [m, []]))]));
  try {
    const file = path.join(dir, `sales-${rows}.csv`);
    await writeSalesCsv(file, rows);
    for (let r = 0; r < runs; r++) {
      for (const [name, code] of builds) {
        for (const mode of MODES) {
          const result = intakeRun(mode, file, code);
          log(`intake ${name} ${mode} run ${r + 1}: ${round(result.ms / 1000, 2)} s (CPU ${round(result.cpuMs / 1000, 2)} s), ${result.rows} rows`);
          raw[name][mode].push(result);
        }
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const summary = (results) => {
    const seconds = median(results.map((x) => x.ms / 1000));
    return { seconds: round(seconds, 2), cpuSeconds: round(median(results.map((x) => x.cpuMs / 1000)), 2),
      rowsPerSecond: Math.round(rows / seconds), documents: results[0].documents, runs: results.map((x) => round(x.ms / 1000, 2)) };
  };
  const out = { rows, builds: {} };
  for (const [name] of builds) {
    const s = Object.fromEntries(MODES.map((m) => [m, summary(raw[name][m])]));
    // ratios per run (the three of one run side by side), then their median
    // wall seconds carry the machine's load; CPU seconds (process.cpuUsage) much less, so both are kept
    const ratio = (a, b, key = 'ms') => round(median(raw[name][a].map((x, i) => x[key] / raw[name][b][i][key])), 2);
    out.builds[name] = { ...s, fullOverFloor: ratio('full', 'floor'), readOverFloor: ratio('read', 'floor'), fullOverRead: ratio('full', 'read'),
      cpu: { fullOverFloor: ratio('full', 'floor', 'cpuMs'), readOverFloor: ratio('read', 'floor', 'cpuMs'), fullOverRead: ratio('full', 'read', 'cpuMs') } };
  }
  return out;
}
