// A throwaway PostgreSQL server for a bench (scripts/pg-test-server.mjs: the machine's binaries, a
// temporary folder, 127.0.0.1 on a free port, fsync off) and fresh databases on it: the one set-up of
// pg-cost.mjs, sql-port.mjs, the intake bench and the cluster bench. On a machine without PostgreSQL it
// says why in one line ({ skipped }), so a bench reports that row as absent instead of failing.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { findPostgres, startServer } from '../../scripts/pg-test-server.mjs';

/**
 * Starts the server under `dir` (`settings`: more `name=value` server settings). Resolves to
 * { info, admin(sql, params, database), stop() }, or { skipped: reason } when the machine has no PostgreSQL.
 */
export async function startBenchPostgres(dir, settings = []) {
  const found = findPostgres();
  if (!found.bindir) return { skipped: found.reason };
  const server = await startServer(found.bindir, path.join(dir, 'pg'), settings);
  // the superuser over the unix socket (trust): creating and dropping databases, reading statistics
  const admin = async (sql, params = [], database = 'postgres') => {
    const client = new pg.Client({
      host: server.info.socketDir,
      port: server.info.port,
      user: server.info.adminUser,
      database,
    });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  return { server, info: server.info, admin, stop: () => server.stop() };
}

/**
 * A fresh database owned by the test role. `url` carries no password (it would show in a process list
 * and in error messages): `env` has PGPASSWORD, for a child process's environment or the executor's `env`.
 */
export async function benchDatabase(pgs, name) {
  await pgs.admin(`CREATE DATABASE ${name} OWNER ${pgs.info.user}`);
  return {
    name,
    url: `postgres://${pgs.info.user}@${pgs.info.host}:${pgs.info.port}/${name}`,
    env: { PGPASSWORD: pgs.info.password },
    drop: () => pgs.admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** CPU seconds (user + system) of process `pid`, NaN once it is gone. */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds of the PostgreSQL server: the postmaster and every process it started that is still running. */
export function serverCpu(postmaster) {
  let total = cpuSeconds(postmaster);
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[1]) === postmaster) total += cpuSeconds(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
