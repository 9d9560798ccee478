/**
 * The tests' side of the throwaway PostgreSQL server (test/helpers/postgres-setup.ts starts it once per
 * run): wait for it, and give each test file a fresh database, dropped at the end.
 *
 *   const db = usePgDatabase();            // at the top of a describePg block
 *   ... db().url                           // postgres://edoc_test:PASSWORD@127.0.0.1:PORT/NAME
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';

export interface PgServerInfo {
  host: string;
  port: number;
  socketDir: string;
  /** The test role (password authentication over TCP). */
  user: string;
  password: string;
  /** The superuser, trusted on the unix socket only: creates and drops databases. */
  adminUser: string;
}

export interface PgDatabase {
  name: string;
  /** The test role's URL, password included. */
  url: string;
  server: PgServerInfo;
}

const provided = inject('postgres');

/** Why the PostgreSQL suites skip on this machine; undefined when they run. */
export const pgSkipReason: string | undefined = 'skip' in provided ? provided.skip : undefined;

/** `describe` that skips (the reason printed once by the setup) when the machine has no PostgreSQL. */
export const describePg = describe.skipIf(pgSkipReason !== undefined);

let ready: Promise<PgServerInfo> | undefined;

/** The running server, once it accepts connections (it starts in the background). */
export function pgServer(timeoutMs = 120_000): Promise<PgServerInfo> {
  if ('skip' in provided) return Promise.reject(new Error(`no PostgreSQL: ${provided.skip}`));
  const dir = provided.dir;
  ready ??= (async () => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return JSON.parse(await readFile(path.join(dir, 'ready.json'), 'utf8')) as PgServerInfo;
      } catch {
        // not yet
      }
      const failed = await readFile(path.join(dir, 'failed.txt'), 'utf8').catch(() => undefined);
      if (failed !== undefined)
        throw new Error(`the test PostgreSQL server did not start: ${failed}`);
      if (Date.now() > deadline)
        throw new Error(`the test PostgreSQL server was not ready after ${timeoutMs} ms (${dir})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return ready;
}

/** Runs `sql` as the superuser (over the unix socket). */
export async function adminQuery(
  sql: string,
  params: unknown[] = [],
  database = 'postgres',
): Promise<pg.QueryResult> {
  const server = await pgServer();
  const client = new pg.Client({
    host: server.socketDir,
    port: server.port,
    user: server.adminUser,
    database,
  });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** A URL of the test role for `database`, with another password or none when asked. */
export function pgUrl(
  server: PgServerInfo,
  database: string,
  password: string | null = server.password,
): string {
  const auth = password === null ? server.user : `${server.user}:${encodeURIComponent(password)}`;
  return `postgres://${auth}@${server.host}:${server.port}/${database}`;
}

/** A fresh database owned by the test role. */
export async function createDatabase(): Promise<PgDatabase & { drop(): Promise<void> }> {
  const server = await pgServer();
  const name = `edoc_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name} OWNER ${server.user}`);
  return {
    name,
    server,
    url: pgUrl(server, name),
    drop: async () => {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** One fresh database for the calling file (or describe block): made before its tests, dropped after. */
export function usePgDatabase(): () => PgDatabase {
  let db: Awaited<ReturnType<typeof createDatabase>> | undefined;
  beforeAll(async () => {
    if (pgSkipReason === undefined) db = await createDatabase();
  }, 150_000);
  afterAll(async () => {
    await db?.drop();
  });
  return () => {
    if (db === undefined)
      throw new Error('usePgDatabase(): the database is made in beforeAll; use it inside a test');
    return db;
  };
}
