/** `edoc-bridge emulator` as a real child process (needs `npm run build`). */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { ROOT } from './helpers.js';

describe('edoc-bridge emulator', () => {
  test('prints its URL within a second, answers E10, and stops cleanly on SIGTERM', async () => {
    expect(existsSync(`${ROOT}dist/cli/main.js`), 'run npm run build first').toBe(true);
    const started = Date.now();
    const child = spawn(process.execPath, ['bin/edoc-bridge.js', 'emulator', '--port', '0', '--seed', 'config/emulator-seed.json'], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m !== null) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const elapsed = Date.now() - started;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      expect(elapsed).toBeLessThan(1000);
      const res = await fetch(`${url}/public/api/numeraciones/by-nit?nit=900123456`, {
        headers: { 'x-api-key': 'demo-key-1001', 'x-company-id': '1001' },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { IsValid: boolean }).IsValid).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('edoc-bridge emulator stopped');
  });

  test('refuses a port that is not a number with exit code 2', async () => {
    const child = spawn(process.execPath, ['bin/edoc-bridge.js', 'emulator', '--port', 'abc', '--seed', 'config/emulator-seed.json'], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(err).toContain('--port');
  });
});
