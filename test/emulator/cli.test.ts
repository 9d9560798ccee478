/** `edoc-bridge emulator` as a real child process (needs `npm run build`). */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { AUTH, ROOT, fixture } from './helpers.js';

interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>;
  url: string;
  elapsed: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function startCli(extra: string[] = []): Promise<Started> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      'bin/edoc-bridge.js',
      'emulator',
      '--port',
      '0',
      '--seed',
      'config/emulator-seed.json',
      ...extra,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m !== null) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  return { child, url, elapsed: Date.now() - started, output: () => out, exited };
}

describe('edoc-bridge emulator', () => {
  test('prints its URL, answers E10, and stops cleanly on SIGTERM', async () => {
    expect(existsSync(`${ROOT}dist/cli/main.js`), 'run npm run build first').toBe(true);
    // How fast it starts is a benchmark's question (bench/scenarios/startup.mjs), not a timed test's: the
    // machine is shared by parallel test files.
    const run = await startCli();
    try {
      const res = await fetch(`${run.url}/public/api/numeraciones/by-nit?nit=900123456`, {
        headers: { 'x-api-key': 'demo-key-1001', 'x-company-id': '1001' },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { IsValid: boolean }).IsValid).toBe(true);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('edoc-bridge emulator stopped');
  });

  test('--state keeps what was issued across a restart of the process', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edoc-emulator-cli-'));
    const state = join(dir, 'emulator.json');
    const issue = async (url: string): Promise<{ IsValid: boolean; Errors: string[] }> => {
      const res = await fetch(`${url}/svcOrchestratorController/v1/process-invoice`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify(fixture('invoice.json')),
      });
      return (await res.json()) as { IsValid: boolean; Errors: string[] };
    };
    try {
      const first = await startCli(['--state', state]);
      expect((await issue(first.url)).IsValid).toBe(true);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      const second = await startCli(['--state', state]);
      try {
        expect((await issue(second.url)).Errors).toEqual([
          'Regla: 90, Rechazo: Documento procesado anteriormente.',
        ]);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('refuses a port that is not a number with exit code 2', async () => {
    const child = spawn(
      process.execPath,
      ['bin/edoc-bridge.js', 'emulator', '--port', 'abc', '--seed', 'config/emulator-seed.json'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(err).toContain('--port');
  });
});
