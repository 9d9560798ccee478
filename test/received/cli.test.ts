import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, cli, ROOT } from '../fixtures/cli/harness.js';
import { SEED_FILE, listFiles, readIndex, tempDir } from './helpers.js';

let dir: string;

function config(otherKey: string): string {
  return [
    'service: { baseUrl: embedded }',
    'companies:',
    '  - { alias: main, id: 1001, nit: "900123456", apiKey: key-1001 }',
    `  - { alias: other, id: 2002, nit: "800555666", apiKey: ${otherKey} }`,
    'received: { perPage: 7, startDate: 2026-03-01, lookbackDays: 3 }',
    `emulator: { seed: ${JSON.stringify(SEED_FILE)} }`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  await buildCli();
  dir = tempDir('edoc-received-cli-');
  fs.writeFileSync(path.join(dir, 'good.yaml'), config('key-2002'));
  fs.writeFileSync(path.join(dir, 'bad-key.yaml'), config('wrong-key'));
}, 240_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('edoc-bridge received pull (child process, embedded emulator)', () => {
  it('backfills a window month by month with a progress line per page, then finds nothing new (exit 0)', async () => {
    const first = await cli(
      [
        'received',
        'pull',
        '--config',
        'good.yaml',
        '--company',
        'main',
        '--from',
        '2026-04-01',
        '--to',
        '2026-05-20',
      ],
      dir,
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toContain('main: pulling 2026-04-01..2026-05-20 (2 months)');
    expect(lines).toContain(
      'main 2026-04-01..2026-04-30 page 2/3 (16 documents): 7 new, 0 seen before',
    );
    expect(lines).toContain(
      'main 2026-04-01..2026-04-30 re-check of page 1 (16 documents): 0 new, 0 seen before',
    );
    expect(lines).toContain(
      'main 2026-05-01..2026-05-20 page 1/1 (7 documents): 7 new, 0 seen before',
    );
    expect(lines.at(-1)).toMatch(
      /^main 2026-04-01\.\.2026-05-20 done: 23 new, 0 seen before, \d+ pages, 0 errors; cursor not set$/,
    );
    expect(first.stdout).toContain('embedded');
    const companyDir = path.join(dir, 'outbox/received/main');
    expect(readIndex(companyDir).rows).toHaveLength(23);
    expect(listFiles(companyDir).filter((f) => f.endsWith('.json'))).toHaveLength(23);

    const again = await cli(
      [
        'received',
        'pull',
        '--config',
        'good.yaml',
        '--company',
        'main',
        '--from',
        '2026-04-01',
        '--to',
        '2026-05-20',
      ],
      dir,
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('done: 0 new, 23 seen before');
    expect(readIndex(companyDir).rows).toHaveLength(23);
  });

  it('counts read as words: "1 page", and status shows the last pull in words, not as JSON', async () => {
    const pull = await cli(
      [
        'received',
        'pull',
        '--config',
        'good.yaml',
        '--company',
        'main',
        '--from',
        '2026-05-01',
        '--to',
        '2026-05-20',
      ],
      dir,
    );
    expect(pull.code, pull.stderr).toBe(0);
    expect(pull.stdout.trim().split('\n').at(-1)).toBe(
      'main 2026-05-01..2026-05-20 done: 0 new, 7 seen before, 1 page, 0 errors; cursor not set',
    );
    const status = await cli(['status', '--config', 'good.yaml'], dir);
    expect(status.code, status.stderr).toBe(0);
    const line = status.stdout
      .split('\n')
      .find((l) => l.startsWith('Received documents: last pull for main'));
    expect(line).toMatch(
      /^Received documents: last pull for main at \S+Z \(2026-05-01\.\.2026-05-20\): 0 new, 7 seen before, 1 page, 0 errors$/,
    );
  });

  it('without --from it pulls from the cursor; a document whose PDF is not a PDF makes it exit 1', async () => {
    const result = await cli(
      ['received', 'pull', '--config', 'good.yaml', '--company', 'main'],
      dir,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/main: pulling 2026-03-01\.\.\d{4}-\d{2}-\d{2} \(\d+ months\)/);
    expect(result.stdout).toMatch(/done: 17 new, 23 seen before/);
    expect(result.stderr).toContain('EDOC_RECEIVED_BAD_PDF FE2005');
    expect(readIndex(path.join(dir, 'outbox/received/main')).rows).toHaveLength(40);
    const log = fs.readFileSync(path.join(dir, 'logs/edoc-bridge.log'), 'utf8');
    expect(log).toContain('"msg":"received pull finished"');
  });

  it('a company whose key is refused: exit 3, the other company still pulled', async () => {
    const result = await cli(
      [
        'received',
        'pull',
        '--config',
        'bad-key.yaml',
        '--from',
        '2026-04-01',
        '--to',
        '2026-04-30',
      ],
      dir,
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('other: the service refused the API key of this company (401)');
    expect(result.stderr).not.toContain('wrong-key');
    expect(result.stdout).toContain('main 2026-04-01..2026-04-30 done: 0 new, 16 seen before');
  });

  it('usage errors exit 2: a date that is not a date, --to alone, an unknown company, no action', async () => {
    const runs = await Promise.all([
      cli(['received', 'pull', '--config', 'good.yaml', '--from', '2026-02-30'], dir),
      cli(['received', 'pull', '--config', 'good.yaml', '--to', '2026-02-01'], dir),
      cli(['received', 'pull', '--config', 'good.yaml', '--company', 'nope'], dir),
      cli(['received', '--config', 'good.yaml'], dir),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(runs[0].stderr).toContain("--from must be a date as yyyy-MM-dd, got '2026-02-30'");
    expect(runs[1].stderr).toContain('--to needs --from');
    expect(runs[2].stderr).toContain("--company 'nope' is not configured; configured: main, other");
    expect(runs[3].stderr).toContain('received pull');
  });
});

describe('edoc-bridge received pull killed between pages (SIGKILL, child process)', () => {
  /** Runs the pull and kills it with SIGKILL once `killAfter` progress lines were printed (never, when undefined). */
  function pull(
    cwd: string,
    killAfter?: number,
  ): Promise<{ stdout: string; signal: NodeJS.Signals | null; code: number | null }> {
    return new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, 'bin/edoc-bridge.js'),
          'received',
          'pull',
          '--config',
          'slow.yaml',
          '--company',
          'main',
          '--from',
          '2026-04-01',
          '--to',
          '2026-05-20',
        ],
        {
          cwd,
          stdio: ['ignore', 'pipe', 'ignore'],
          env: { PATH: process.env.PATH ?? '', HOME: cwd, LANG: 'C.UTF-8' },
        },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const pages = stdout.split('\n').filter((l) => / page \d+\/\d+ /.test(l)).length;
        if (killAfter !== undefined && pages >= killAfter) child.kill('SIGKILL');
      });
      child.on('close', (code, signal) => resolve({ stdout, signal, code }));
    });
  }

  it('loses nothing and writes nothing twice: each document once in the folder and the index after two kills', async () => {
    const slowDir = tempDir('edoc-received-kill-');
    try {
      // every answer of the embedded emulator 300 ms late, E12 included: the kill lands while a page is awaited
      const seed = JSON.parse(fs.readFileSync(SEED_FILE, 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(
        path.join(slowDir, 'seed.json'),
        JSON.stringify({ ...seed, faults: { latencyMs: 300, allEndpoints: true } }),
      );
      fs.writeFileSync(
        path.join(slowDir, 'slow.yaml'),
        [
          'service: { baseUrl: embedded }',
          'companies:',
          '  - { alias: main, id: 1001, nit: "900123456", apiKey: key-1001 }',
          'received: { perPage: 7, startDate: 2026-03-01, lookbackDays: 3 }',
          'emulator: { seed: seed.json }',
          '',
        ].join('\n'),
      );
      const first = await pull(slowDir, 1);
      expect(first.signal).toBe('SIGKILL');
      const second = await pull(slowDir, 2);
      expect(second.signal).toBe('SIGKILL');
      const last = await pull(slowDir);
      expect(last.code).toBe(0);
      const done = /done: (\d+) new, (\d+) seen before/.exec(last.stdout);
      expect(done, last.stdout).not.toBeNull();
      // the first two runs wrote some of the 23 documents of the window before they were killed
      expect(Number(done?.[1]) + Number(done?.[2])).toBe(23);
      expect(Number(done?.[2])).toBeGreaterThan(0);
      const companyDir = path.join(slowDir, 'outbox/received/main');
      const rows = readIndex(companyDir).rows;
      expect(rows).toHaveLength(23);
      expect(new Set(rows.map((r) => r.cufe)).size).toBe(23);
      expect(listFiles(companyDir).filter((f) => f.endsWith('.json'))).toHaveLength(23);
    } finally {
      fs.rmSync(slowDir, { recursive: true, force: true });
    }
  }, 60_000);
});
