/**
 * Issue 6 inside the daemon: `edoc-bridge run` pulls the received documents of every company at
 * start and on its schedule, beside the inbox pipeline, and `edoc-bridge status` (run beside it)
 * shows the last pull. The real CLI as child processes, on the embedded emulator with the
 * received-documents seed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, cli, ROOT } from '../fixtures/cli/harness.js';
import { listFiles, readIndex, SEED_FILE, tempDir } from '../received/helpers.js';

let dir: string;

beforeAll(async () => {
  await buildCli();
  dir = tempDir('edoc-daemon-received-');
  fs.writeFileSync(
    path.join(dir, 'edoc-bridge.yaml'),
    [
      'service: { baseUrl: embedded }',
      'companies:',
      '  - { alias: main, id: 1001, nit: "900123456", apiKey: key-1001 }',
      '  - { alias: other, id: 2002, nit: "800555666", apiKey: key-2002 }',
      'received: { every: 1h, perPage: 7, startDate: 2026-03-01, lookbackDays: 3 }',
      `emulator: { seed: ${JSON.stringify(SEED_FILE)} }`,
      '',
    ].join('\n'),
  );
}, 240_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

interface LogLine {
  msg: string;
  company?: string;
  level: number;
  [k: string]: unknown;
}

function logLines(): LogLine[] {
  const file = path.join(dir, 'logs', 'edoc-bridge.log');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LogLine);
}

async function until<T>(check: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; log: ${JSON.stringify(logLines().slice(-10))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the daemon pulls received documents', () => {
  it('at start, for every company, into outbox/received/<company>/ with its index; status shows the last pull', async () => {
    const daemon = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/edoc-bridge.js'), 'run', '--config', 'edoc-bridge.yaml'],
      { cwd: dir, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) =>
      daemon.on('exit', (code) => resolve(code)),
    );
    try {
      const finished = await until(() => {
        const lines = logLines().filter((l) =>
          /^received pull (finished|did not finish)$/.test(l.msg),
        );
        return ['main', 'other'].every((c) => lines.some((l) => l.company === c))
          ? lines
          : undefined;
      }, 'a received pull of both companies');
      const main = finished.find((l) => l.company === 'main');
      // every document of the window written (the seed's FE2005 carries a "PDF" that is not one: reported as
      // the one error, its record written without it), so the cursor moved to today in Colombia
      expect(main).toMatchObject({
        msg: 'received pull finished',
        from: '2026-03-01',
        new: 40,
        seenBefore: 0,
        errors: 1,
        complete: true,
      });
      expect(main?.cursor).toBe(main?.to);
      const mainDir = path.join(dir, 'outbox/received/main');
      expect(readIndex(mainDir).rows).toHaveLength(40);
      expect(listFiles(mainDir).filter((f) => f.endsWith('.json'))).toHaveLength(40);
      expect(finished.find((l) => l.company === 'other')?.msg).toBe('received pull finished');
      expect(readIndex(path.join(dir, 'outbox/received/other')).rows.length).toBeGreaterThan(0);

      // a read-only status beside the running daemon
      const status = await cli(['status', '--json', '--config', 'edoc-bridge.yaml'], dir);
      expect(status.code, status.stderr).toBe(0);
      const json = JSON.parse(status.stdout) as {
        daemon: { running: boolean };
        lastPulls: { company: string; at: number }[];
      };
      expect(json.daemon.running).toBe(true);
      expect(json.lastPulls.map((p) => p.company)).toContain('other');
      const text = await cli(['status', '--config', 'edoc-bridge.yaml'], dir);
      expect(text.stdout).toMatch(/^Received documents: last pull for other at \d{4}-\d\d-\d\dT/m);
    } finally {
      daemon.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('received pull beside a running daemon', () => {
  it('goes through the daemon: it pulls every company now and the command prints its pulls; a --from/--to window says in one line what to do (exit 2)', async () => {
    const beside = tempDir('edoc-received-beside-');
    fs.copyFileSync(path.join(dir, 'edoc-bridge.yaml'), path.join(beside, 'edoc-bridge.yaml'));
    const log = (): LogLine[] => {
      const file = path.join(beside, 'logs', 'edoc-bridge.log');
      return fs.existsSync(file)
        ? fs
            .readFileSync(file, 'utf8')
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l) as LogLine)
        : [];
    };
    const pulls = (): LogLine[] => log().filter((l) => l.msg === 'received pull finished');
    const daemon = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/edoc-bridge.js'), 'run', '--config', 'edoc-bridge.yaml'],
      { cwd: beside, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) =>
      daemon.on('exit', (code) => resolve(code)),
    );
    try {
      // the pulls at start, for both companies
      const deadline = Date.now() + 30_000;
      while (pulls().length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(pulls()).toHaveLength(2);

      const run = await cli(['received', 'pull', '--config', 'edoc-bridge.yaml'], beside);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(
        /^the daemon \(pid \d+\) holds the state folder .*: asked it to pull received documents now/m,
      );
      // from the cursor the start's pull left (today) minus lookbackDays: the seed has nothing that recent
      expect(run.stdout).toMatch(
        /^main: pulled by the daemon at \d{4}-\d\d-\d\dT[^ ]+ \([^)]*\): 0 new, 0 seen before, 1 page, 0 errors; cursor \d{4}-/m,
      );
      expect(run.stdout).toMatch(/^other: pulled by the daemon at /m);
      expect(pulls()).toHaveLength(4);

      const window = await cli(
        ['received', 'pull', '--from', '2026-03-01', '--config', 'edoc-bridge.yaml'],
        beside,
      );
      expect(window.code).toBe(2);
      const lines = window.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /the daemon \(pid \d+\) holds the state folder .* a pull of --from\/--to needs the state folder: stop the daemon, run this command, then start the daemon again/,
      );
      expect(pulls()).toHaveLength(4);
    } finally {
      daemon.kill('SIGTERM');
      fs.rmSync(beside, { recursive: true, force: true });
    }
    expect(await exited).toBe(0);
  });
});
