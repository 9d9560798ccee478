/**
 * One-shot CLI commands (`node bin/edoc-bridge.js <command> --config FILE`) run
 * as child processes in a project folder, timed, with both streams. The only
 * CLI runner of the tests (test/fixtures/cli/harness.ts `cli` wraps `runCli`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { BIN, childEnv } from './daemon-harness.js';

/** Where a command runs: a daemon-harness Project, or any folder (with a configuration file or none). */
export interface CliTarget {
  dir: string;
  configFile?: string;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the process, in milliseconds. */
  ms: number;
}

export interface CliOptions {
  /** Adds `--config target.configFile`. @defaultValue true */
  config?: boolean;
  /** Kills the command after this long. @defaultValue 30000 */
  timeoutMs?: number;
  /** Kills the command when aborted (the fixture's clean-up after a failed or timed-out test). */
  signal?: AbortSignal;
  /** More environment variables (set to '' to have one defined but empty). */
  env?: Record<string, string>;
}

/** Runs a command in `target.dir`, with `--config target.configFile` added unless `config: false` or there is none. */
export function runCli(
  target: CliTarget,
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliRun> {
  const full =
    options.config === false || target.configFile === undefined
      ? [...args]
      : [...args, '--config', target.configFile];
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...full],
      {
        cwd: target.dir,
        timeout: options.timeoutMs ?? 30_000,
        env: childEnv(target.dir, options.env),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

/** Starts a command without waiting for it (to signal it); `done` resolves when it exits. */
export function spawnCli(
  target: CliTarget,
  args: readonly string[],
): { process: ChildProcess; done: Promise<CliRun> } {
  const started = Date.now();
  const config = target.configFile === undefined ? [] : ['--config', target.configFile];
  const child = spawn(process.execPath, [BIN, ...args, ...config], {
    cwd: target.dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: childEnv(target.dir),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? (signal === null ? -1 : 128),
        stdout,
        stderr,
        ms: Date.now() - started,
      }),
    );
  });
  return { process: child, done };
}

/** Runs `command` through `bash -c` in the folder (pipes), with the same environment plus $NODE and $BIN. */
export function runShell(target: CliTarget, command: string, timeoutMs = 30_000): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      '/bin/bash',
      ['-c', command],
      {
        cwd: target.dir,
        timeout: timeoutMs,
        env: childEnv(target.dir, { NODE: process.execPath, BIN }),
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

/** The stderr lines that are not the embedded-emulator note. */
export function errorLines(run: CliRun): string[] {
  return run.stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('note:'));
}
