import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { createCliIO } from '../../src/cli/io.js';
import { exitCodeFor, main } from '../../src/cli/main.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_SERVICE, EXIT_USAGE } from '../../src/cli/exit-codes.js';
import { EdocError } from '../../src/errors.js';

function sink(): { lines: string[]; write(text: string): boolean } {
  const lines: string[] = [];
  return { lines, write: (text: string) => lines.push(text) > 0 };
}

async function project(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-cli-io-'));
  await writeFile(
    path.join(dir, 'edoc-bridge.yaml'),
    [
      'companies:',
      '  - { alias: main, id: 1001, nit: "900123456", apiKey: "${KEY}" }',
      'log: { level: debug }',
      '',
    ].join('\n'),
  );
  return dir;
}

describe('the context a command runs with', () => {
  test('config() loads once relative to cwd; logger() writes to config.log.file with every API key scrubbed', async () => {
    const dir = await project();
    const io = createCliIO(
      { stdout: sink(), stderr: sink(), env: { KEY: 'io-secret-key-4242' }, cwd: dir },
      'edoc-bridge.yaml',
      false,
    );
    const config = await io.config();
    expect(await io.config()).toBe(config);
    expect(config.log.file).toBe(path.join(dir, 'logs/edoc-bridge.log'));
    const logger = await io.logger();
    expect(await io.logger()).toBe(logger);
    logger.debug({ company: 'main' }, 'the key is io-secret-key-4242');
    await io.dispose();
    await io.dispose();
    const [line] = (await readFile(config.log.file, 'utf8'))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(line).toMatchObject({ level: 'debug', company: 'main', msg: 'the key is [redacted]' });
  });

  test('signal listeners registered through onSignal are removed by dispose', async () => {
    const io = createCliIO(
      { stdout: sink(), stderr: sink(), env: {}, cwd: os.tmpdir() },
      'none.yaml',
      false,
    );
    const before = process.listenerCount('SIGHUP');
    io.onSignal('SIGHUP', () => undefined);
    const off = io.onSignal('SIGHUP', () => undefined);
    expect(process.listenerCount('SIGHUP')).toBe(before + 2);
    off();
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    await io.dispose();
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });
});

describe('exit codes', () => {
  test('configuration and usage errors are 2, service unreachable or unauthorized 3, anything else 1', () => {
    expect(exitCodeFor(new EdocError('EDOC_CONFIG_INVALID', 'x'))).toBe(EXIT_USAGE);
    expect(exitCodeFor(new EdocError('EDOC_CONFIG_KEY_FILE', 'x'))).toBe(EXIT_USAGE);
    expect(exitCodeFor(new EdocError('EDOC_CLI_USAGE', 'x'))).toBe(EXIT_USAGE);
    expect(exitCodeFor(new EdocError('EDOC_MAPPING_INVALID', 'x'))).toBe(EXIT_USAGE);
    expect(exitCodeFor(new EdocError('EDOC_SERVICE_UNREACHABLE', 'x'))).toBe(EXIT_SERVICE);
    expect(exitCodeFor(new EdocError('EDOC_SERVICE_UNAUTHORIZED', 'x'))).toBe(EXIT_SERVICE);
    expect(exitCodeFor(new Error('boom'))).toBe(EXIT_NOT_ALL_SUCCEEDED);
  });

  test('main() runs in-process with its own streams and working directory', async () => {
    const dir = await project();
    const stderr = sink();
    const code = await main(['ranges', 'list', '--config', 'edoc-bridge.yaml'], {
      stdout: sink(),
      stderr,
      env: {},
      cwd: dir,
    });
    expect(code).toBe(EXIT_USAGE);
    expect(stderr.lines.join('')).toContain(
      'edoc-bridge.yaml: companies[0].apiKey: environment variable KEY is not set',
    );
  });
});

describe('a log file that cannot be opened', () => {
  test('is a configuration error naming log.file', async () => {
    const dir = await project();
    await writeFile(path.join(dir, 'blocker'), 'a file where a folder should be');
    await writeFile(
      path.join(dir, 'edoc-bridge.yaml'),
      [
        'companies:',
        '  - { alias: main, id: 1001, nit: "900123456", apiKey: abcd1234 }',
        'log: { file: blocker/sub/edoc-bridge.log }',
        '',
      ].join('\n'),
    );
    const io = createCliIO(
      { stdout: sink(), stderr: sink(), env: {}, cwd: dir },
      'edoc-bridge.yaml',
      false,
    );
    const err = await io.logger().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EDOC_CONFIG_INVALID' });
    expect((err as Error).message).toContain('edoc-bridge.yaml: log.file: cannot open');
    expect(exitCodeFor(err)).toBe(EXIT_USAGE);
    await io.dispose();
  });
});
