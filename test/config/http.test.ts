/** The `http` section: the operator listener's address and token, refused where it would expose the console. */
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { parseListen } from '../../src/config/http-schema.js';
import { redactConfig } from '../../src/config/redact.js';
import { configSecrets } from '../../src/config/secrets.js';
import { MINIMAL, writeConfig } from './helpers.js';

const TOKEN = 'console-token-0123456789abcdef';
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function load(http: string, env: NodeJS.ProcessEnv = {}, secrets = true) {
  const { dir, file } = await writeConfig(`${MINIMAL}${http}`);
  dirs.push(dir);
  return loadConfig(file, env, { secrets });
}

describe('http', () => {
  test('absent: no listener', async () => {
    expect((await load('')).http).toBeUndefined();
  });

  test('present with no keys: loopback 127.0.0.1:9464, no token, probe every 10 s of idleness', async () => {
    expect((await load('http: {}\n')).http).toEqual({
      listen: '127.0.0.1:9464',
      sessionIdleMs: 1_800_000,
      probeIdleMs: 10_000,
    });
  });

  test('the token comes from ${EDOC_CONSOLE_TOKEN}, is redacted in the effective configuration and scrubbed like a key', async () => {
    const config = await load('http:\n  listen: "0.0.0.0:9464"\n  token: ${EDOC_CONSOLE_TOKEN}\n', {
      EDOC_CONSOLE_TOKEN: TOKEN,
    });
    expect(config.http?.token).toBe(TOKEN);
    expect(JSON.stringify(redactConfig(config))).not.toContain(TOKEN);
    expect(configSecrets(config)).toContain(TOKEN);
  });

  test('a command that reads no secrets does not need EDOC_CONSOLE_TOKEN set', async () => {
    const config = await load('http:\n  token: ${EDOC_CONSOLE_TOKEN}\n', {}, false);
    expect(config.http?.listen).toBe('127.0.0.1:9464');
  });

  test('a non-loopback listen without a token is refused, naming http.token', async () => {
    await expect(load('http:\n  listen: "0.0.0.0:9464"\n')).rejects.toMatchObject({
      code: 'EDOC_CONFIG_INVALID',
      message: expect.stringMatching(
        /http\.token: is required when listen \(0\.0\.0\.0:9464\)/,
      ) as unknown,
    });
    await expect(load('http:\n  listen: "[::]:9464"\n')).rejects.toThrow(/http\.token/);
  });

  test('a short token, a listen that is not host:port, and unknown keys are refused with their key path', async () => {
    await expect(load('http:\n  token: short\n')).rejects.toThrow(
      /http\.token: must be at least 16 characters/,
    );
    await expect(load('http:\n  listen: "localhost"\n')).rejects.toThrow(
      /http\.listen: must be host:port/,
    );
    await expect(load('http:\n  listen: "127.0.0.1:70000"\n')).rejects.toThrow(/http\.listen/);
    await expect(load('http:\n  port: 9464\n')).rejects.toThrow(/http\.port/);
  });

  test('listen forms', () => {
    expect(parseListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListen('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseListen('localhost:0')).toEqual({ host: 'localhost', port: 0 });
    expect(parseListen('9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListen('::1:9464')).toBeUndefined();
    expect(parseListen('host:port')).toBeUndefined();
  });
});
