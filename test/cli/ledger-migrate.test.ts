/**
 * `edoc-bridge ledger migrate` as a child process: against the harness's real PostgreSQL (the password
 * from ${ENV} in ledger.url, or PGPASSWORD), and the SQLite state folder without ledger.url. A refused
 * or unreachable server is one clear line with its exit code, and the password is printed nowhere,
 * --verbose included.
 */
import net from 'node:net';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-runner.js';
import { buildCli, COMPANY_MAIN, createProject, type Project } from '../helpers/daemon-harness.js';
import { adminQuery, describePg, usePgDatabase } from '../helpers/postgres.js';
import { PG_SCHEMA_VERSION as V } from '../../src/ledger/sql/pg-migrations.js';

const db = usePgDatabase();
const WRONG = 'Wr0ng-pass:word/x';
const projects: Project[] = [];

beforeAll(async () => {
  await buildCli();
}, 240_000);

afterAll(async () => {
  for (const p of projects) await p.remove();
});

/** A project whose configuration has `ledger` (none when undefined). */
async function project(ledger: Record<string, string> | undefined): Promise<Project> {
  const p = await createProject({ baseUrl: 'embedded', companies: [COMPANY_MAIN] });
  projects.push(p);
  const config = parse(await readFile(p.configFile, 'utf8')) as Record<string, unknown>;
  if (ledger !== undefined) config.ledger = ledger;
  await writeFile(p.configFile, stringify(config));
  return p;
}

function printed(run: CliRun): string {
  return `${run.stdout}\n${run.stderr}`;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describePg('edoc-bridge ledger migrate on PostgreSQL', () => {
  test('creates the schema (password from ${ENV} in ledger.url), then finds nothing to do; the password is never printed', async () => {
    const { server, name } = db();
    const p = await project({
      url: `postgres://${server.user}:\${EDOC_PG_PASSWORD}@${server.host}:${server.port}/${name}`,
    });
    const env = { EDOC_PG_PASSWORD: encodeURIComponent(server.password) };
    const first = await runCli(p, ['ledger', 'migrate'], { env });
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    const where = `postgres://${server.user}@${server.host}:${server.port}/${name}`;
    expect(first.stdout.trim()).toBe(
      `PostgreSQL ledger ${where}: schema migrated from version 0 to ${V}`,
    );
    const again = await runCli(p, ['ledger', 'migrate'], { env });
    expect(again.stdout.trim()).toBe(
      `PostgreSQL ledger ${where}: schema at version ${V}, nothing to migrate`,
    );
    for (const run of [first, again]) expect(printed(run)).not.toContain(server.password);
    const versions = await adminQuery(
      'SELECT version, program FROM schema_version ORDER BY version',
      [],
      name,
    );
    expect(versions.rows).toEqual(
      Array.from({ length: V }, (_, i) => ({ version: i + 1, program: 'edoc-bridge' })),
    );
  });

  test('takes the password from PGPASSWORD when the URL has none', async () => {
    const { server, name } = db();
    const p = await project({
      url: `postgres://${server.user}@${server.host}:${server.port}/${name}`,
    });
    const run = await runCli(p, ['ledger', 'migrate'], { env: { PGPASSWORD: server.password } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`schema (migrated from version \\d to ${V}|at version ${V})`),
    );
  });

  test('a wrong password: exit 2, one line naming the server and EDOC_LEDGER_REFUSED, the password nowhere (--verbose too)', async () => {
    const { server, name } = db();
    const p = await project({
      url: `postgres://${server.user}:\${EDOC_PG_PASSWORD}@${server.host}:${server.port}/${name}`,
    });
    const env = { EDOC_PG_PASSWORD: encodeURIComponent(WRONG) };
    const run = await runCli(p, ['ledger', 'migrate'], { env });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(
      `edoc-bridge ledger: The PostgreSQL server postgres://${server.user}@${server.host}:${server.port}/${name} refused the ledger's connection`,
    );
    expect(run.stderr).toMatch(/password authentication failed.*\[EDOC_LEDGER_REFUSED\]/);
    const verbose = await runCli(p, ['ledger', 'migrate', '--verbose'], { env });
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(/context: .*"server"/);
    for (const r of [run, verbose]) {
      expect(printed(r)).not.toContain(WRONG);
      expect(printed(r)).not.toContain(encodeURIComponent(WRONG));
    }
  });

  test('no server at that address: exit 3 (may pass: a service manager restarts), EDOC_LEDGER_UNREACHABLE, no password', async () => {
    const port = await closedPort();
    const p = await project({
      url: `postgres://someone:${encodeURIComponent(WRONG)}@127.0.0.1:${port}/nothing`,
    });
    const run = await runCli(p, ['ledger', 'migrate', '--verbose']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      `The PostgreSQL ledger postgres://someone@127.0.0.1:${port}/nothing could not be reached`,
    );
    expect(run.stderr).toContain('[EDOC_LEDGER_UNREACHABLE]');
    expect(printed(run)).not.toContain(WRONG);
    expect(printed(run)).not.toContain(encodeURIComponent(WRONG));
  });

  test('other commands use the PostgreSQL ledger, never quietly the SQLite one: refused credentials stop them, unquoted', async () => {
    const { server, name } = db();
    const p = await project({
      url: `postgres://${server.user}:${encodeURIComponent(WRONG)}@${server.host}:${server.port}/${name}`,
    });
    for (const command of [['status'], ['run']]) {
      const run = await runCli(p, command);
      expect(run.code, run.stderr).not.toBe(0);
      expect(run.stdout + run.stderr).toContain('EDOC_LEDGER_REFUSED');
      expect(printed(run)).not.toContain(WRONG);
    }
    expect(existsSync(path.join(p.dir, 'state', 'ledger.sqlite'))).toBe(false);
  });
});

describe('edoc-bridge ledger migrate on the SQLite state folder', () => {
  test('creates the ledger when there is none, then finds nothing to do; an unknown action is a usage error', async () => {
    const p = await project(undefined);
    const first = await runCli(p, ['ledger', 'migrate']);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    const file = path.join(p.dir, 'state', 'ledger.sqlite');
    expect(first.stdout.trim()).toMatch(
      new RegExp(
        `^SQLite ledger ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: schema migrated from version 0 to \\d+$`,
      ),
    );
    const again = await runCli(p, ['ledger', 'migrate']);
    expect(again.stdout.trim()).toMatch(/: schema at version \d+, nothing to migrate$/);
    const bad = await runCli(p, ['ledger', 'frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown action "frobnicate" \(use: migrate, copy\)/);
  });
});
