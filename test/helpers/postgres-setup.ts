/**
 * vitest globalSetup: ONE throwaway PostgreSQL server per test run (scripts/pg-test-server.mjs), started
 * in the background so a run that uses no database does not wait for it; test/helpers/postgres.ts waits
 * for it to be ready. Each test file makes its own database there (`usePgDatabase`).
 *
 * The server process is detached with its stdin a pipe from this process: a finished, interrupted
 * (Ctrl-C) or killed run closes the pipe, and it stops the server and removes its folder.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { findPostgres } from '../../scripts/pg-test-server.mjs';

/** What the tests get through inject('postgres'): the server's folder, or why there is no server. */
export type PostgresProvided = { dir: string } | { skip: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresProvided;
  }
}

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/pg-test-server.mjs');

export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  const found = findPostgres();
  if (found.bindir === undefined) {
    // CI sets this: a machine it set up must run the PostgreSQL suites, never skip them quietly
    if (process.env.EDOC_REQUIRE_POSTGRES === '1')
      throw new Error(`EDOC_REQUIRE_POSTGRES=1 but ${found.reason}`);
    process.stderr.write(`PostgreSQL suites skipped: ${found.reason}\n`);
    project.provide('postgres', { skip: found.reason });
    return undefined;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'edoc-pg-'));
  const child = spawn(process.execPath, [SCRIPT, dir], {
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
    env: { ...process.env, EDOC_PG_BINDIR: found.bindir },
  });
  child.unref();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  project.provide('postgres', { dir });
  return async () => {
    child.stdin?.end();
    await exited;
  };
}
