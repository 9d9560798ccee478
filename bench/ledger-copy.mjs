// `edoc-bridge ledger copy` of a large ledger: 100,000 documents in every state (with their bodies,
// events, received documents; test/fixtures/ledger/every-state.ts writes them through the ledger API),
// copied by the real command (a child process) into a throwaway PostgreSQL 15 server; prints the
// command's own summary, the wall time, rows/s and the child's peak resident memory.
//   npm run build && node bench/ledger-copy.mjs [--n 100000] [--body 600]
// --takeover [--companies 5] [--rate 50] [--nodes 1,3] [--restart] [--keep]: the documents are valid invoices of companies the
// emulator knows (--body does not apply); after the copy, 1 and then 3 `edoc-bridge run` cluster nodes (child processes, each on
// its own copy of the source and its own emulator) take over until nothing waits, and the bench checks
// per document, against the source, that nothing final was sent again and nothing in doubt was sent
// (bench/lib/takeover.mjs); exit 1 when a check fails. --restart: in each run of several nodes, node-1 is stopped
// (SIGTERM) halfway and started again. --keep leaves the folder (nodes' logs, the source) for a look.
// Not part of `npm run bench`. The server runs with fsync off (scripts/pg-test-server.mjs), as in the tests.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { findPostgres, startServer } from '../scripts/pg-test-server.mjs';
import { takeoverScene } from './lib/takeover-scene.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const n = arg('--n', 100_000);
const body = arg('--body', 600);
const takeover = process.argv.includes('--takeover');
const keep = process.argv.includes('--keep');
const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-bench-copy-'));
const stateDir = path.join(dir, 'state');

function run(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: root, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${args.join(' ')} failed: ${stderr || err.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** Runs the command, sampling its resident memory from /proc; resolves with its output, wall time and peak RSS. */
function measured(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const sample = setInterval(() => {
      try {
        const kb = Number(
          /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0,
        );
        peak = Math.max(peak, kb);
      } catch {
        /* exited */
      }
    }, 50);
    child.on('close', (code) => {
      clearInterval(sample);
      if (code !== 0) reject(new Error(`ledger copy exited ${code}: ${stderr}`));
      else resolve({ stdout, stderr, ms: performance.now() - started, peakMb: peak / 1024 });
    });
  });
}

const found = findPostgres();
if (!found.bindir) {
  console.log(`ledger-copy bench: no PostgreSQL (${found.reason})`);
  process.exit(0);
}
let server;
let scene;
try {
  server = await startServer(found.bindir, path.join(dir, 'pg'));
  const { info } = server;
  /** A new database owned by the test role, by name. */
  const database = async (name) => {
    const admin = new pg.Client({
      host: info.socketDir,
      port: info.port,
      user: info.adminUser,
      database: 'postgres',
    });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} OWNER ${info.user}`);
    await admin.end();
    return { name, url: `postgres://${info.user}@${info.host}:${info.port}/${name}` };
  };
  const db = await database('bench');
  const { url } = db;
  // the take-over's companies, its emulator and its project folder exist before the fill: the files' folders are under it
  scene = takeover
    ? await takeoverScene({ db, n: arg('--companies', 5), rate: arg('--rate', 50) })
    : undefined;
  const t0 = performance.now();
  const filled = JSON.parse(
    await run(process.execPath, [
      '--import',
      './test/fixtures/ledger/register.mjs',
      'test/fixtures/ledger/every-state.ts',
      stateDir,
      String(n),
      String(body),
      ...(scene ? [scene.sendable] : []),
    ]),
  );
  const fillMs = performance.now() - t0;
  const copy = await measured(
    ['bin/edoc-bridge.js', 'ledger', 'copy', '--from', stateDir, '--to', url],
    { PGPASSWORD: info.password },
  );
  const rows = Number(/([\d,]+) rows in/.exec(copy.stdout)?.[1].replace(/,/g, '') ?? 0);
  const sqliteMb = statSync(path.join(stateDir, 'ledger.sqlite')).size / 1024 / 1024;
  console.log(
    `ledger-copy bench — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `  source: ${filled.documents.toLocaleString('en')} documents in ${filled.files} files, ${JSON.stringify(filled.byState)}; ` +
      `ledger.sqlite ${sqliteMb.toFixed(1)} MB (written in ${(fillMs / 1000).toFixed(1)} s)`,
  );
  console.log(
    copy.stdout
      .trimEnd()
      .split('\n')
      .map((line) => `  | ${line}`)
      .join('\n'),
  );
  console.log(
    `  wall time of the command ${(copy.ms / 1000).toFixed(1)} s (start, migrate, copy, verify, commit, ANALYZE), ` +
      `${Math.round(rows / (copy.ms / 1000)).toLocaleString('en')} rows/s, ` +
      `${Math.round(filled.documents / (copy.ms / 1000)).toLocaleString('en')} documents/s; peak RSS ${copy.peakMb.toFixed(0)} MB`,
  );
  if (scene) {
    const nodes = (
      process.argv.includes('--nodes') ? process.argv[process.argv.indexOf('--nodes') + 1] : '1,3'
    )
      .split(',')
      .map(Number);
    let ok = true;
    for (const [i, count] of nodes.entries()) {
      // every run after the first takes over its own copy of the same source, with a fresh emulator
      const target = i === 0 ? db : await database(`bench_${i}`);
      if (i > 0) {
        await scene.reset(target);
        await measured(
          ['bin/edoc-bridge.js', 'ledger', 'copy', '--from', stateDir, '--to', target.url],
          { PGPASSWORD: info.password },
        );
      }
      ok =
        (await scene.takeOver({
          nodes: count,
          db: target,
          password: info.password,
          sqliteFile: path.join(stateDir, 'ledger.sqlite'),
          restart: count > 1 && process.argv.includes('--restart'),
        })) && ok;
    }
    if (!ok) process.exitCode = 1;
  }
} finally {
  await scene?.close({ keep });
  await server?.stop();
  if (keep) console.log(`  kept ${dir}${scene ? ` and ${scene.dir}` : ''}`);
  else rmSync(dir, { recursive: true, force: true });
}
