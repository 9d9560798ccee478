/**
 * The PostgreSQL backend's failures against the real server: refused, unreachable, a session cut while
 * in use; each one EdocError naming the server and never the password, in the message, the context,
 * the cause or the log line an error becomes.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { isEdocError } from '../../src/errors.js';
import { redactDeep } from '../../src/log/redact.js';
import { openPostgresExecutor } from '../../src/ledger/sql/postgres.js';
import { resolvePgConnection } from '../../src/config/pg-connection.js';
import { isStorageFull } from '../../src/storage/storage-full.js';
import { adminQuery, describePg, pgUrl, usePgDatabase } from '../helpers/postgres.js';

const db = usePgDatabase();
const SECRET = 'Sup3r-s3cret:p@ss/word?';

/** Everything an error could show anywhere: message, stack, context, causes, the logged form. */
function everything(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    parts.push(
      e.message,
      e.stack ?? '',
      JSON.stringify((e as { context?: unknown }).context ?? {}),
    );
    e = e.cause;
  }
  parts.push(JSON.stringify(redactDeep({ err })));
  return parts.join('\n');
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describePg('the PostgreSQL ledger connection fails clearly and keeps its password', () => {
  it('a wrong password is EDOC_LEDGER_REFUSED naming user, host and database, not the password', async () => {
    const { server, name } = db();
    const exec = openPostgresExecutor(pgUrl(server, name, SECRET));
    const err = await failure(exec.get('SELECT 1'));
    await exec.close();
    expect(isEdocError(err, 'EDOC_LEDGER_REFUSED')).toBe(true);
    expect((err as Error).message).toContain(
      `postgres://${server.user}@${server.host}:${server.port}/${name}`,
    );
    expect((err as Error).message).toMatch(/password authentication failed/);
    for (const form of [SECRET, encodeURIComponent(SECRET)])
      expect(everything(err)).not.toContain(form);
  });

  it('the password from PGPASSWORD or ~/.pgpass works, and is kept out of errors the same way', async () => {
    const { server, name } = db();
    const bare = pgUrl(server, name, null);
    const viaEnv = openPostgresExecutor(bare, { env: { PGPASSWORD: server.password } });
    expect(await viaEnv.get('SELECT 1 AS one')).toEqual({ one: 1 });
    await viaEnv.close();
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const home = mkdtempSync('/tmp/edoc-pgpass-');
    try {
      writeFileSync(
        `${home}/.pgpass`,
        `# comment\nother:1:*:*:nope\n${server.host}:${server.port}:*:${server.user}:${server.password}\n`,
        { mode: 0o600 },
      );
      const viaFile = openPostgresExecutor(bare, { env: { HOME: home } });
      expect(await viaFile.get('SELECT 1 AS one')).toEqual({ one: 1 });
      await viaFile.close();
      writeFileSync(`${home}/.pgpass`, `*:*:*:*:${SECRET}\n`, { mode: 0o600 });
      const wrong = openPostgresExecutor(bare, { env: { HOME: home } });
      const err = await failure(wrong.get('SELECT 1'));
      await wrong.close();
      expect(isEdocError(err, 'EDOC_LEDGER_REFUSED')).toBe(true);
      expect(everything(err)).not.toContain(SECRET);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('no password at all, where the server wants one, is EDOC_LEDGER_REFUSED', async () => {
    const { server, name } = db();
    const exec = openPostgresExecutor(pgUrl(server, name, null), { env: { HOME: '/nonexistent' } });
    const err = await failure(exec.get('SELECT 1'));
    await exec.close();
    expect(isEdocError(err, 'EDOC_LEDGER_REFUSED')).toBe(true);
  });

  it('a database that does not exist is EDOC_LEDGER_REFUSED', async () => {
    const { server } = db();
    const exec = openPostgresExecutor(pgUrl(server, 'no_such_db'));
    const err = await failure(exec.get('SELECT 1'));
    await exec.close();
    expect(isEdocError(err, 'EDOC_LEDGER_REFUSED')).toBe(true);
    expect((err as Error).message).toMatch(/no_such_db/);
    expect(everything(err)).not.toContain(db().server.password);
  });

  it("no server at that port is EDOC_LEDGER_UNREACHABLE, without the URL's password", async () => {
    const port = await closedPort();
    const exec = openPostgresExecutor(
      `postgres://someone:${encodeURIComponent(SECRET)}@127.0.0.1:${port}/x`,
    );
    const err = await failure(exec.get('SELECT 1'));
    await exec.close();
    expect(isEdocError(err, 'EDOC_LEDGER_UNREACHABLE')).toBe(true);
    expect((err as Error).message).toContain(`postgres://someone@127.0.0.1:${port}/x`);
    for (const form of [SECRET, encodeURIComponent(SECRET)])
      expect(everything(err)).not.toContain(form);
  });

  it('a session terminated inside a transaction is EDOC_LEDGER_CONNECTION_LOST; the next statement gets a new connection', async () => {
    const exec = openPostgresExecutor(db().url, { applicationName: 'edoc-cut-test' });
    const err = await failure(
      exec.transaction(async (tx) => {
        await tx.get('SELECT 1');
        await adminQuery(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'edoc-cut-test'`,
        );
        await tx.get('SELECT 2');
      }),
    );
    expect(isEdocError(err, 'EDOC_LEDGER_CONNECTION_LOST')).toBe(true);
    expect(everything(err)).not.toContain(db().server.password);
    expect(await exec.get('SELECT 3 AS three')).toEqual({ three: 3 });
    await exec.close();
  });

  it('an idle pooled connection that the server ends does not take the process down', async () => {
    const idle: unknown[] = [];
    const exec = openPostgresExecutor(db().url, {
      applicationName: 'edoc-idle-test',
      onIdleError: (e) => idle.push(e),
    });
    expect(await exec.get('SELECT 1 AS one')).toEqual({ one: 1 });
    await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'edoc-idle-test'`,
    );
    await expect.poll(() => idle.length).toBeGreaterThan(0);
    expect(isEdocError(idle[0], 'EDOC_LEDGER_CONNECTION_LOST')).toBe(true);
    expect(await exec.get('SELECT 2 AS two')).toEqual({ two: 2 });
    await exec.close();
  });

  it('sslmode in the URL is honoured: require against a server without TLS is refused, disable connects', async () => {
    const required = openPostgresExecutor(`${db().url}?sslmode=require`);
    const err = await failure(required.get('SELECT 1'));
    await required.close();
    expect(isEdocError(err, 'EDOC_LEDGER_REFUSED')).toBe(true);
    expect((err as Error).message).toMatch(/does not support SSL/);
    const plain = openPostgresExecutor(`${db().url}?sslmode=disable`);
    expect(await plain.get('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).toEqual({
      ssl: false,
    });
    await plain.close();
  });

  it("a full disk (SQLSTATE 53100) is a storage-full error like SQLite's", async () => {
    const exec = openPostgresExecutor(db().url);
    const err = await failure(
      exec.run(
        `DO $$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$`,
      ),
    );
    await exec.close();
    expect((err as { code?: string }).code).toBe('53100');
    expect(isStorageFull(err)).toBe(true);
  });
});

describe('a ledger URL is resolved once, and names its server without the password', () => {
  it('takes the password from the URL first, then PGPASSWORD', () => {
    const fromUrl = resolvePgConnection(
      `postgres://u:${encodeURIComponent(SECRET)}@db.example:6543/ledger?sslmode=require`,
      { PGPASSWORD: 'env' },
    );
    expect(fromUrl.password).toBe(SECRET);
    expect(fromUrl.display).toBe('postgres://u@db.example:6543/ledger');
    expect(new URL(fromUrl.connectionString).searchParams.get('sslmode')).toBe('require');
    const fromEnv = resolvePgConnection('postgres://u@db.example/ledger', {
      PGPASSWORD: 'env-pass',
      HOME: '/nonexistent',
    });
    expect(fromEnv.password).toBe('env-pass');
    expect(fromEnv.display).toBe('postgres://u@db.example:5432/ledger');
  });

  it('fills host, port, user and database from the PG* variables', () => {
    const c = resolvePgConnection('postgres://', {
      PGHOST: 'h',
      PGPORT: '7000',
      PGUSER: 'w',
      PGDATABASE: 'd',
      HOME: '/nonexistent',
    });
    expect(c.display).toBe('postgres://w@h:7000/d');
    expect(c.password).toBeUndefined();
  });

  it('refuses what is not a postgres URL without quoting it', () => {
    expect(() => resolvePgConnection(`mysql://u:${SECRET}@h/d`)).toThrow(
      /must be a postgres:\/\/ URL, not mysql:/,
    );
    let err: unknown;
    try {
      resolvePgConnection(`postgres://u:${encodeURIComponent(SECRET)}@[bad`);
    } catch (e) {
      err = e;
    }
    expect(isEdocError(err, 'EDOC_CONFIG_INVALID')).toBe(true);
    expect(everything(err)).not.toContain(SECRET);
  });
});
