/**
 * One-shot CLI commands (`node bin/edoc-bridge.js <command> --config FILE`) run
 * as child processes inside a daemon-harness Project, timed, with both streams.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { ROOT, type Project } from './daemon-harness.js';

const BIN = path.join(ROOT, 'bin/edoc-bridge.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the process, in milliseconds. */
  ms: number;
}

/** Runs a command against the project's configuration (added as `--config` unless `config: false`). */
export function runCli(project: Project, args: readonly string[], options: { config?: boolean; timeoutMs?: number } = {}): Promise<CliRun> {
  const full = options.config === false ? [...args] : [...args, '--config', project.configFile];
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...full], {
      cwd: project.dir, timeout: options.timeoutMs ?? 30_000,
      env: { PATH: process.env.PATH ?? '', HOME: project.dir, LANG: 'C.UTF-8', TZ: 'UTC' },
    }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Runs `command` through `bash -c` in the project folder (pipes), with the same environment. */
export function runShell(project: Project, command: string, timeoutMs = 30_000): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile('/bin/bash', ['-c', command], {
      cwd: project.dir, timeout: timeoutMs,
      env: { PATH: process.env.PATH ?? '', HOME: project.dir, LANG: 'C.UTF-8', TZ: 'UTC', NODE: process.execPath, BIN },
    }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The stderr lines that are not the embedded-emulator note. */
export function errorLines(run: CliRun): string[] {
  return run.stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('note:'));
}
