/** The test harness's PostgreSQL: password authentication for real, one fresh database per call, a clear reason when absent. */
import { expect, it } from 'vitest';
import pg from 'pg';
import { findPostgres } from '../../scripts/pg-test-server.mjs';
import { adminQuery, createDatabase, describePg, pgServer } from '../helpers/postgres.js';

it('says in one line why there is no PostgreSQL when no binaries are found', () => {
  const found = findPostgres({ PATH: '/nonexistent' }, ['/nonexistent/15/bin']);
  expect(found.bindir).toBeUndefined();
  expect(found.reason).toMatch(
    /^no PostgreSQL server binaries \(initdb, postgres\) in \/nonexistent\/15\/bin, pg_config --bindir or PATH; install postgresql-15 or set EDOC_PG_BINDIR$/,
  );
  expect(findPostgres({ EDOC_PG_BINDIR: '/nonexistent' }).reason).toBe(
    'EDOC_PG_BINDIR=/nonexistent holds no initdb and postgres',
  );
});

describePg('the throwaway server', () => {
  it('is PostgreSQL 15, and its test role logs in with a SCRAM password over TCP, not as a superuser', async () => {
    const server = await pgServer();
    const roles = await adminQuery(
      `SELECT rolsuper, rolpassword LIKE 'SCRAM-SHA-256$%' AS scram FROM pg_authid WHERE rolname = $1`,
      [server.user],
    );
    expect(roles.rows).toEqual([{ rolsuper: false, scram: true }]);
    const version = await adminQuery('SHOW server_version_num');
    expect(Math.floor(Number(version.rows[0].server_version_num) / 10_000)).toBe(15);
    const hba = await adminQuery(
      `SELECT type, auth_method FROM pg_hba_file_rules WHERE type = 'host'`,
    );
    expect(new Set(hba.rows.map((r: { auth_method: string }) => r.auth_method))).toEqual(
      new Set(['scram-sha-256']),
    );
  });

  it('gives each caller a fresh database of the test role, and drops it', async () => {
    const [a, b] = await Promise.all([createDatabase(), createDatabase()]);
    expect(a.name).not.toBe(b.name);
    const client = new pg.Client({ connectionString: a.url });
    await client.connect();
    expect((await client.query('SELECT current_user AS u, current_database() AS d')).rows).toEqual([
      { u: a.server.user, d: a.name },
    ]);
    await client.end();
    await Promise.all([a.drop(), b.drop()]);
    const left = await adminQuery('SELECT datname FROM pg_database WHERE datname = ANY($1)', [
      [a.name, b.name],
    ]);
    expect(left.rows).toEqual([]);
  });
});
