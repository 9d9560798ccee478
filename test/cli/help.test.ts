import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runCli, type CliRun } from '../helpers/cli-runner.js';
import { buildCli } from '../helpers/daemon-harness.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const COMMANDS = [
  'run',
  'submit',
  'validate',
  'status',
  'retry',
  'resolve',
  'ranges',
  'commission',
  'received',
  'emulator',
];

function sink(): { lines: string[]; write(text: string): boolean } {
  const lines: string[] = [];
  return { lines, write: (text: string) => lines.push(text) > 0 };
}

/** The CLI in `cwd` (the repository by default) with EDOC_API_KEY defined but empty. */
function cli(args: string[], cwd = ROOT): Promise<CliRun> {
  return runCli({ dir: cwd }, args, { timeoutMs: 20_000, env: { EDOC_API_KEY: '' } });
}

beforeAll(buildCli, 240_000);

describe('edoc-bridge --help', () => {
  test('lists every command of the command line with its summary, exit 0', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    for (const name of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(stdout).toContain('--config FILE');
    expect(stdout).toContain('3 service unreachable or unauthorized');
  });

  test('without a command, prints the help on stderr and exits 2', async () => {
    const { code, stderr } = await cli([]);
    expect(code).toBe(2);
    expect(stderr).toContain('Commands:');
  });

  test('--version prints the package version', async () => {
    const stdout = sink();
    expect(await main(['--version'], { stdout, stderr: sink(), env: {}, cwd: ROOT })).toBe(0);
    expect(stdout.lines.join('').trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('edoc-bridge <command> --help', () => {
  test('submit --help, run as the real binary, prints its usage, options and examples, exit 0', async () => {
    const { code, stdout } = await cli(['submit', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: edoc-bridge submit FILE --kind KIND/);
    expect(stdout).toMatch(/-k, --kind KIND +document kind of the file/);
    expect(stdout).toContain('--dry-run');
    expect(stdout).toMatch(/Examples:\n {2}edoc-bridge submit /);
  });

  // In-process (same code path as the binary) to keep the file fast: one child per command would cost seconds.
  test.each(COMMANDS)(
    '%s --help prints its usage, global options and examples, exit 0',
    async (name) => {
      for (const argv of [
        [name, '--help'],
        ['help', name],
        [name, 'x', '-h'],
      ]) {
        const stdout = sink();
        const code = await main(argv, { stdout, stderr: sink(), env: {}, cwd: ROOT });
        const text = stdout.lines.join('');
        expect(code).toBe(0);
        expect(text).toMatch(new RegExp(`^Usage: edoc-bridge ${name}\\b`));
        expect(text).toContain('Global options:');
        expect(text).toContain('--config FILE');
        expect(text).toMatch(new RegExp(`Examples:\\n {2}edoc-bridge ${name}`));
      }
    },
  );
});

describe('usage errors exit 2 with one readable line', () => {
  test('an unknown option names it and suggests the closest one', async () => {
    const { code, stderr, stdout } = await cli(['submit', 'a.csv', '--knd', 'invoice']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'edoc-bridge submit: unknown option --knd (did you mean --kind?) (see edoc-bridge submit --help)\n',
    );
  });

  test('an unknown command suggests the closest one', async () => {
    const { code, stderr } = await cli(['sumbit']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'edoc-bridge: unknown command "sumbit" (did you mean "submit"?); run edoc-bridge --help for the list\n',
    );
  });

  test('an option without its value, and an extra argument, are usage errors', async () => {
    const missing = await cli(['status', '--config']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'edoc-bridge status: option --config needs a value (see edoc-bridge status --help)\n',
    );
    const extra = await cli(['status', 'extra']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('unexpected argument "extra"');
  });
});

describe('configuration errors exit 2 naming the file and the key path', () => {
  let dir: string;
  let bad: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-cli-'));
    bad = path.join(dir, 'bad.yaml');
    await writeFile(
      bad,
      [
        'companies:',
        '  - alias: main',
        '    id: 1001',
        '    nit: "900123456"',
        '    apiKey: cli-secret-key-5555',
        '    rate: { requestsPerSecond: fast }',
        'servce: { baseUrl: embedded }',
        '',
      ].join('\n'),
    );
  });

  test('run --config <invalid file> prints the key paths in one line and exits 2', async () => {
    const { code, stderr } = await cli(['run', '--config', bad]);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(`edoc-bridge run: ${bad}: `);
    expect(stderr).toContain('companies[0].rate.requestsPerSecond: expected number');
    expect(stderr).toContain('servce: unknown key "servce" (did you mean "service"?)');
    expect(stderr).toContain('[EDOC_CONFIG_INVALID]');
    expect(stderr).not.toContain('cli-secret-key-5555');
  });

  test('--config may come before the command; --verbose adds the stack trace', async () => {
    const { code, stderr } = await cli(['--config', bad, 'status', '--verbose']);
    expect(code).toBe(2);
    expect(stderr).toContain('companies[0].rate.requestsPerSecond');
    expect(stderr).toMatch(/\n\s+at .*load\.js/);
  });

  test('a missing configuration file (the default relative to the working directory) exits 2', async () => {
    const { code, stderr } = await cli(['status'], dir);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'edoc-bridge status: config/edoc-bridge.yaml: cannot read the configuration file (ENOENT) [EDOC_CONFIG_NOT_FOUND]\n',
    );
  });
});
