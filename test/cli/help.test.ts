import { execFile, execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/edoc-bridge.js');
const COMMANDS = ['run', 'submit', 'validate', 'status', 'retry', 'ranges', 'commission', 'received', 'emulator'];

interface Result { code: number; stdout: string; stderr: string }

function cli(args: string[], cwd = ROOT): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, EDOC_API_KEY: '' }, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => {
  // Other stages may be mid-edit and fail to typecheck; tsc still emits, and the CLI frame is what is tested here.
  try {
    execSync('npm run build', { cwd: ROOT, stdio: 'pipe' });
  } catch {
    // checked below
  }
  expect(existsSync(path.join(ROOT, 'dist/cli/main.js'))).toBe(true);
}, 120_000);

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
    const { code, stdout } = await cli(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('edoc-bridge <command> --help', () => {
  test.each(COMMANDS)('%s --help prints its usage, options and examples, exit 0', async (name) => {
    const { code, stdout } = await cli([name, '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: edoc-bridge ${name}\\b`));
    expect(stdout).toContain('Global options:');
    expect(stdout).toContain('--config FILE');
    expect(stdout).toMatch(new RegExp(`Examples:\\n  edoc-bridge ${name}`));
  });

  test('submit --help shows its options with their value names', async () => {
    const { stdout } = await cli(['help', 'submit']);
    expect(stdout).toMatch(/-k, --kind KIND +document kind of the file/);
    expect(stdout).toContain('--dry-run');
  });

  test('-h works after other arguments too', async () => {
    const { code, stdout } = await cli(['submit', 'file.csv', '--kind', 'invoice', '-h']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: edoc-bridge submit FILE --kind KIND');
  });
});

describe('usage errors exit 2 with one readable line', () => {
  test('an unknown option names it and suggests the closest one', async () => {
    const { code, stderr, stdout } = await cli(['submit', 'a.csv', '--knd', 'invoice']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('edoc-bridge submit: unknown option --knd (did you mean --kind?) (see edoc-bridge submit --help)\n');
  });

  test('an unknown command suggests the closest one', async () => {
    const { code, stderr } = await cli(['sumbit']);
    expect(code).toBe(2);
    expect(stderr).toBe('edoc-bridge: unknown command "sumbit" (did you mean "submit"?); run edoc-bridge --help for the list\n');
  });

  test('an option without its value, and an extra argument, are usage errors', async () => {
    const missing = await cli(['status', '--config']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('edoc-bridge status: option --config needs a value (see edoc-bridge status --help)\n');
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
    await writeFile(bad, [
      'companies:',
      '  - alias: main',
      '    id: 1001',
      '    nit: "900123456"',
      '    apiKey: cli-secret-key-5555',
      '    rate: { requestsPerSecond: fast }',
      'servce: { baseUrl: embedded }',
      '',
    ].join('\n'));
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
    expect(stderr).toBe('edoc-bridge status: config/edoc-bridge.yaml: cannot read the configuration file (ENOENT) [EDOC_CONFIG_NOT_FOUND]\n');
  });
});
