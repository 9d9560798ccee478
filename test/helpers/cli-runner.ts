/**
 * One-shot CLI commands (`node bin/edoc-bridge.js <command> --config FILE`) run
 * as child processes inside a daemon-harness Project, timed, with both streams.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
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

/** Starts a command without waiting for it (to signal it); `done` resolves when it exits. */
export function spawnCli(project: Project, args: readonly string[]): { process: ChildProcess; done: Promise<CliRun> } {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args, '--config', project.configFile], {
    cwd: project.dir, stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: project.dir, LANG: 'C.UTF-8', TZ: 'UTC' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? (signal === null ? -1 : 128), stdout, stderr, ms: Date.now() - started }));
  });
  return { process: child, done };
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
