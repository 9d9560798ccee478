#!/usr/bin/env node
// A throwaway PostgreSQL server for the tests (and for trying things by hand):
//
//   node scripts/pg-test-server.mjs [DIR]    # prints the server's URLs once it is ready; Ctrl-C stops it
//
// It runs initdb and postgres from the machine's binaries (EDOC_PG_BINDIR, /usr/lib/postgresql/15/bin,
// `pg_config --bindir`, or PATH) in DIR (default: a new temporary folder), on a free port of 127.0.0.1 and a
// unix socket inside DIR; fsync off. Two roles: the superuser `postgres` (trust, unix socket only: the
// harness creates and drops databases with it) and `edoc_test` with a random password (scram-sha-256 on TCP:
// what the code under test uses, so password authentication is exercised).
//
// The server lives as long as this process's stdin stays open, whatever happens to whoever started it:
// the test harness (test/helpers/postgres-setup.ts) starts it detached, with stdin a pipe, so a finished,
// interrupted (Ctrl-C) or killed test run closes the pipe, and this process stops the server and removes
// DIR. When DIR is given, progress goes to DIR/ready.json or DIR/failed.txt for the tests to read.
// initdb refuses to run as root: as root, DIR is given to the `postgres` user (or `nobody`) and both
// programs run as that user.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const CANDIDATES = ['/usr/lib/postgresql/15/bin'];
const ROLE = 'edoc_test';

/** Where initdb and postgres are, or why there are none: { bindir } | { reason }. */
export function findPostgres(env = process.env, candidates = CANDIDATES) {
  const has = (dir) =>
    existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'postgres'));
  if (env.EDOC_PG_BINDIR) {
    return has(env.EDOC_PG_BINDIR)
      ? { bindir: env.EDOC_PG_BINDIR }
      : { reason: `EDOC_PG_BINDIR=${env.EDOC_PG_BINDIR} holds no initdb and postgres` };
  }
  for (const dir of candidates) if (has(dir)) return { bindir: dir };
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env,
    }).trim();
    if (has(dir)) return { bindir: dir };
  } catch {
    // no pg_config: look on PATH
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter))
    if (dir !== '' && has(dir)) return { bindir: dir };
  return {
    reason: `no PostgreSQL server binaries (initdb, postgres) in ${candidates.join(', ')}, pg_config --bindir or PATH; install postgresql-15 or set EDOC_PG_BINDIR`,
  };
}

/** The user the server runs as when we are root (initdb refuses root). */
function serverUser() {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(
        execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
      );
      const gid = Number(
        execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
      );
      return { name, uid, gid };
    } catch {
      // try the next one
    }
  }
  throw new Error(
    'running as root, and there is neither a postgres nor a nobody user to run initdb as',
  );
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(file, args, user, cwd) {
  execFileSync(file, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', LANG: 'C', HOME: cwd },
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
}

async function waitReady(socketDir, port, child, deadline) {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`postgres exited (${child.exitCode ?? child.signalCode})`);
    const client = new pg.Client({ host: socketDir, port, user: 'postgres', database: 'postgres' });
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => {});
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections in time: ${err.message}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Starts the server in `dir` (created when missing); resolves to { info, stop() }. `settings`: more
 * `name=value` server settings (the cluster bench loads pg_stat_statements to count statements).
 */
export async function startServer(bindir, dir, settings = []) {
  const user = serverUser();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const data = path.join(dir, 'data');
  const socketDir = path.join(dir, 'sock');
  mkdirSync(socketDir, { mode: 0o700 });
  if (user) {
    // the user the server runs as must be able to reach its folder through ours (traverse only)
    const parent = path.dirname(dir);
    chmodSync(parent, (statSync(parent).mode & 0o7777) | 0o011);
    chownSync(dir, user.uid, user.gid);
    chownSync(socketDir, user.uid, user.gid);
  }
  run(
    path.join(bindir, 'initdb'),
    [
      '-D',
      data,
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
    ],
    user,
    dir,
  );
  let lastError;
  // the port is free when we look, not necessarily when postgres binds it (another run may take it): retry
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = spawn(
      path.join(bindir, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        socketDir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'shared_buffers=32MB',
        '-c',
        'max_connections=200',
        '-c',
        'log_min_messages=warning',
        '-c',
        'log_min_error_statement=panic',
        '-c',
        'unix_socket_permissions=0777',
        ...settings.flatMap((x) => ['-c', x]),
      ],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { PATH: process.env.PATH ?? '', LANG: 'C', HOME: dir },
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    try {
      const admin = await waitReady(socketDir, port, child, Date.now() + 60_000);
      const password = randomBytes(18).toString('base64url');
      await admin.query(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${password}'`);
      await admin.end();
      const info = {
        host: '127.0.0.1',
        port,
        socketDir,
        user: ROLE,
        password,
        adminUser: 'postgres',
        dir,
        pid: child.pid,
      };
      const stop = () => stopServer(child);
      return { info, stop };
    } catch (err) {
      await stopServer(child);
      lastError = new Error(
        `${err.message}${stderr ? `; postgres said: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`,
      );
      if (!/could not bind|Address already in use/i.test(stderr)) break;
    }
  }
  throw lastError;
}

/** Fast shutdown (SIGINT: open sessions are cut), then SIGQUIT if it lingers. */
function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGQUIT'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT');
  });
}

async function main() {
  const given = process.argv[2];
  const dir = given ?? mkdtempSync(path.join(os.tmpdir(), 'edoc-pg-'));
  const report = (name, text) => {
    if (given) writeFileSync(path.join(dir, name), text, { mode: 0o600 });
  };
  const found = findPostgres();
  if (!found.bindir) {
    report('failed.txt', found.reason);
    process.stderr.write(`pg-test-server: ${found.reason}\n`);
    process.exit(1);
  }
  let server;
  let stopping = false;
  const finish = async (code) => {
    if (stopping) return;
    stopping = true;
    if (server) await server.stop();
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  // stdin closed (the harness finished, was interrupted or killed) or a signal: stop and clean up
  process.stdin.on('end', () => void finish(0));
  process.stdin.on('error', () => void finish(0));
  process.stdin.resume();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void finish(0));
  try {
    server = await startServer(found.bindir, path.join(dir, 'pg'));
  } catch (err) {
    report('failed.txt', String(err.message));
    process.stderr.write(`pg-test-server: ${err.message}\n`);
    await finish(1);
    return;
  }
  if (stopping) {
    await server.stop();
    return;
  }
  const { info } = server;
  report('ready.json.tmp', JSON.stringify(info));
  if (given) renameSync(path.join(dir, 'ready.json.tmp'), path.join(dir, 'ready.json'));
  process.stdout.write(
    `postgres://${info.user}:${info.password}@${info.host}:${info.port}/postgres\n` +
      `admin: psql -h ${info.socketDir} -p ${info.port} -U postgres postgres\n`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  await main();
