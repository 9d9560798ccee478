// `edoc-bridge ledger copy` of a large ledger: 100,000 documents in every state (with their bodies,
// events, received documents; test/fixtures/ledger/every-state.ts writes them through the ledger API),
// copied by the real command (a child process) into a throwaway PostgreSQL 15 server; prints the
// command's own summary, the wall time, rows/s and the child's peak resident memory.
//   npm run build && node bench/ledger-copy.mjs [--n 100000] [--body 600]
// Not part of `npm run bench`. The server runs with fsync off (scripts/pg-test-server.mjs), as in the tests.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { findPostgres, startServer } from '../scripts/pg-test-server.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const n = arg('--n', 100_000);
const body = arg('--body', 600);
const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-bench-copy-'));
const stateDir = path.join(dir, 'state');

function run(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: root, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

/** Runs the command, sampling its resident memory from /proc; resolves with its output, wall time and peak RSS. */
function measured(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const sample = setInterval(() => {
      try {
        const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
        peak = Math.max(peak, kb);
      } catch { /* exited */ }
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
try {
  const t0 = performance.now();
  const filled = JSON.parse(await run(process.execPath, ['--import', './test/fixtures/ledger/register.mjs',
    'test/fixtures/ledger/every-state.ts', stateDir, String(n), String(body)]));
  const fillMs = performance.now() - t0;
  server = await startServer(found.bindir, path.join(dir, 'pg'));
  const { info } = server;
  const admin = new pg.Client({ host: info.socketDir, port: info.port, user: info.adminUser, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE bench OWNER ${info.user}`);
  await admin.end();
  const url = `postgres://${info.user}@${info.host}:${info.port}/bench`;
  const copy = await measured(['bin/edoc-bridge.js', 'ledger', 'copy', '--from', stateDir, '--to', url], { PGPASSWORD: info.password });
  const rows = Number(/([\d,]+) rows in/.exec(copy.stdout)?.[1].replace(/,/g, '') ?? 0);
  const sqliteMb = statSync(path.join(stateDir, 'ledger.sqlite')).size / 1024 / 1024;
  console.log(`ledger-copy bench — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  source: ${filled.documents.toLocaleString('en')} documents in ${filled.files} files, ${JSON.stringify(filled.byState)}; `
    + `ledger.sqlite ${sqliteMb.toFixed(1)} MB (written in ${(fillMs / 1000).toFixed(1)} s)`);
  console.log(copy.stdout.trimEnd().split('\n').map((line) => `  | ${line}`).join('\n'));
  console.log(`  wall time of the command ${(copy.ms / 1000).toFixed(1)} s (start, migrate, copy, verify, commit, ANALYZE), `
    + `${Math.round(rows / (copy.ms / 1000)).toLocaleString('en')} rows/s, `
    + `${Math.round(filled.documents / (copy.ms / 1000)).toLocaleString('en')} documents/s; peak RSS ${copy.peakMb.toFixed(0)} MB`);
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
