/**
 * `npm start` is how a new user first runs the daemon (README). npm hands the
 * signals it receives to the script's process; the daemon must be that process
 * (or get them), or a SIGTERM to npm leaves node running with the ledger lock.
 * The test copies the package into a temp folder (its own dist/, state/, logs/)
 * and runs the real `npm start` there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ROOT, sleep } from '../helpers/daemon-harness.js';

let dir: string | undefined;
let npm: ChildProcess | undefined;

afterEach(async () => {
  // whatever is left of the process group (npm, sh, node) goes
  if (npm?.pid !== undefined) {
    try {
      process.kill(-npm.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  npm = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function packageCopy(): Promise<string> {
  const target = await mkdtemp(path.join(os.tmpdir(), 'edoc-npm-start-'));
  for (const name of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin', 'config']) {
    await cp(path.join(ROOT, name), path.join(target, name), { recursive: true });
  }
  await symlink(path.join(ROOT, 'src'), path.join(target, 'src'));
  await symlink(path.join(ROOT, 'node_modules'), path.join(target, 'node_modules'));
  return target;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function lockHolder(stateDir: string): number | undefined {
  try {
    return (
      JSON.parse(readFileSync(path.join(stateDir, 'edoc-bridge.lock'), 'utf8')) as { pid: number }
    ).pid;
  } catch {
    return undefined;
  }
}

describe('npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} to the npm start process stops the daemon: no node process remains and the ledger lock is released`, async () => {
      dir = await packageCopy();
      const cwd = dir;
      let output = '';
      // its own process group, so that the signal below reaches npm alone (as from systemd's KillMode=process or kill PID)
      npm = spawn('npm', ['start'], {
        cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '', HOME: cwd, LANG: 'C.UTF-8', TZ: 'UTC' },
      });
      npm.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      npm.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const exited = new Promise<void>((resolve) => npm?.on('exit', () => resolve()));
      const logFile = path.join(cwd, 'logs', 'edoc-bridge.log');
      await until(
        'the daemon watching the inbox',
        () => {
          if (npm?.exitCode !== null) throw new Error(`npm start exited: ${output}`);
          return existsSync(logFile) &&
            readFileSync(logFile, 'utf8').includes('"msg":"watching the inbox"')
            ? true
            : undefined;
        },
        120_000,
      );
      const daemonPid = lockHolder(path.join(cwd, 'state'));
      expect(daemonPid, 'the daemon holds state/edoc-bridge.lock').toBeTypeOf('number');
      expect(alive(daemonPid as number)).toBe(true);

      npm.kill(signal);
      await exited;
      await until(
        'the daemon to exit',
        () => (alive(daemonPid as number) ? undefined : true),
        30_000,
      );
      expect(existsSync(path.join(cwd, 'state', 'edoc-bridge.lock'))).toBe(false);
      const log = readFileSync(logFile, 'utf8');
      expect(log).toContain(`"signal":"${signal}"`);
      expect(log).toMatch(/"msg":"stopping"/);
    }, 180_000);
  }
});
