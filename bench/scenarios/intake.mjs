// 7. Intake speed (issue 16 item 7, issue 13 must-show 3): one sales CSV export (lib/sales-csv.mjs,
// 1,000,000 rows; --quick 100,000), read in the same run five ways, each in a fresh child process
// (bench/intake-speed.mjs): (A) csv-parse + iconv-lite alone, the floor; (B) our intake without the
// ledger (hash, read, map, validate); (C) our full intake into a real SQLite ledger on one thread; (C')
// the same as the daemon runs it, read on its intake worker while the main thread stores (`daemon`);
// (D) (C) into a PostgreSQL ledger (a throwaway server started here from the machine's binaries, a fresh
// database per run; on a machine without PostgreSQL, (D) is left out with the one-line reason). They alternate
// within each run. (C) and (D) also count what the ledger asked of the database per document
// (statements, calls: round trips on PostgreSQL) and (D) the server's CPU. With EDOC_BENCH_BEFORE=<a build
// folder with dist/ and node_modules> the same run with that build too, alternating with this one, on
// the same file: before/after in one run.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchDatabase, startBenchPostgres } from '../lib/postgres.mjs';
import { writeSalesCsv } from '../lib/sales-csv.mjs';
import { CODE, ROOT, log, median, round } from '../lib/util.mjs';

const MODES = ['floor', 'read', 'full', 'daemon', 'full-pg'];

/** The V8 flag bin/edoc-bridge.js sets for the daemon: every mode runs with it, as the daemon would. */
const DAEMON_V8_FLAGS = ['--heap-growing-percent=20'];

/**
 * One mode over `file` with the build in `code` (a folder with dist/ and node_modules), in a fresh process.
 * `db` (full-pg): the database (benchDatabase) and the server's postmaster pid, for its CPU.
 */
export function intakeRun(mode, file, code = CODE, nodeArgs = DAEMON_V8_FLAGS, db = undefined) {
  const args = [
    ...nodeArgs,
    path.join(ROOT, 'bench/intake-speed.mjs'),
    '--child',
    mode,
    file,
    code,
    ...(db ? [db.url] : []),
  ];
  const env = db
    ? { ...process.env, ...db.env, EDOC_BENCH_PG_PID: String(db.serverPid) }
    : process.env;
  const out = execFileSync(process.execPath, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  return JSON.parse(out);
}

export async function intake({ runs, quick, rows: asked }) {
  const rows = asked ?? (quick ? 100_000 : 1_000_000);
  const builds = [['this', CODE]];
  if (process.env.EDOC_BENCH_BEFORE) builds.unshift(['before', process.env.EDOC_BENCH_BEFORE]);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-bench-intake-'));
  const raw = Object.fromEntries(
    builds.map(([name]) => [name, Object.fromEntries(MODES.map((m) => [m, []]))]),
  );
  let pgs;
  try {
    pgs = await startBenchPostgres(dir);
    if (pgs.skipped) log(`intake: (D) into PostgreSQL left out: ${pgs.skipped}`);
    const modes = pgs.skipped ? MODES.filter((m) => m !== 'full-pg') : MODES;
    const file = path.join(dir, `sales-${rows}.csv`);
    await writeSalesCsv(file, rows);
    for (let r = 0; r < runs; r++) {
      for (const [name, code] of builds) {
        for (const mode of modes) {
          // a fresh database per run, as (C) gets a fresh state folder
          const db =
            mode === 'full-pg'
              ? {
                  ...(await benchDatabase(pgs, `bench_intake_${process.pid}_${name}_${r}`)),
                  serverPid: pgs.info.pid,
                }
              : undefined;
          try {
            const result = intakeRun(mode, file, code, DAEMON_V8_FLAGS, db);
            log(
              `intake ${name} ${mode} run ${r + 1}: ${round(result.ms / 1000, 2)} s (CPU ${round(result.cpuMs / 1000, 2)} s` +
                `${result.serverCpuMs === undefined ? '' : `, server ${round(result.serverCpuMs / 1000, 2)} s`}), ${result.rows} rows`,
            );
            raw[name][mode].push(result);
          } finally {
            await db?.drop();
          }
        }
      }
    }
  } finally {
    if (pgs && !pgs.skipped) await pgs.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const summary = (results) => {
    if (results.length === 0) return undefined;
    const seconds = median(results.map((x) => x.ms / 1000));
    const perDocument = (key) =>
      results[0][key] === undefined
        ? undefined
        : round(median(results.map((x) => x[key] / x.documents)), 3);
    return {
      seconds: round(seconds, 2),
      cpuSeconds: round(median(results.map((x) => x.cpuMs / 1000)), 2),
      ...(results[0].serverCpuMs === undefined
        ? {}
        : { serverCpuSeconds: round(median(results.map((x) => x.serverCpuMs / 1000)), 2) }),
      rowsPerSecond: Math.round(rows / seconds),
      documents: results[0].documents,
      ...(results[0].statements === undefined
        ? {}
        : {
            statementsPerDocument: perDocument('statements'),
            callsPerDocument: perDocument('calls'),
            transactions: results[0].transactions,
          }),
      runs: results.map((x) => round(x.ms / 1000, 2)),
    };
  };
  const out = {
    rows,
    ...(pgs?.skipped ? { postgres: `left out: ${pgs.skipped}` } : {}),
    builds: {},
  };
  for (const [name] of builds) {
    const s = Object.fromEntries(
      MODES.map((m) => [m, summary(raw[name][m])]).filter(([, v]) => v !== undefined),
    );
    // ratios per run (the modes of one run side by side), then their median
    // wall seconds carry the machine's load; CPU seconds (process.cpuUsage) much less, so both are kept
    const ratio = (a, b, key = 'ms') =>
      raw[name][a].length === 0
        ? undefined
        : round(median(raw[name][a].map((x, i) => x[key] / raw[name][b][i][key])), 2);
    out.builds[name] = {
      ...s,
      fullOverFloor: ratio('full', 'floor'),
      readOverFloor: ratio('read', 'floor'),
      fullOverRead: ratio('full', 'read'),
      pgOverSqlite: ratio('full-pg', 'full'),
      daemonOverFull: ratio('daemon', 'full'),
      cpu: {
        fullOverFloor: ratio('full', 'floor', 'cpuMs'),
        readOverFloor: ratio('read', 'floor', 'cpuMs'),
        fullOverRead: ratio('full', 'read', 'cpuMs'),
        pgOverSqlite: ratio('full-pg', 'full', 'cpuMs'),
      },
    };
  }
  return out;
}
