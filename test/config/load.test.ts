import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { EdocError } from '../../src/errors.js';
import { MINIMAL, writeConfig } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function loadError(
  text: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ err: EdocError; file: string }> {
  const { file, dir } = await writeConfig(text);
  const err = await loadConfig(file, env, { cwd: dir }).then(
    () => {
      throw new Error('expected the configuration to be refused');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EdocError);
  return { err: err as EdocError, file };
}

describe('defaults', () => {
  test('a minimal file gets every default of PRODUCT "Configuration"', async () => {
    const { file, dir } = await writeConfig(MINIMAL);
    const config = await loadConfig(file, {}, { cwd: dir });
    expect(config.service).toEqual({
      baseUrl: 'embedded',
      paths: 'primary',
      timeoutMs: 30_000,
      allowInsecureHttp: false,
    });
    expect(config.companies[0].rate).toEqual({ requestsPerSecond: 5, concurrency: 4 });
    expect(config.companies[0].userId).toBeUndefined();
    expect(config.retry).toEqual({ maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 60_000 });
    expect(config.watch).toEqual({
      stableMs: 1_000,
      archiveWatchMs: 600_000,
      usePolling: false,
      doneMarker: { suffixes: [], replaceExtension: false },
    });
    expect(config.read).toEqual({ maxRecordBytes: 32 * 1024 * 1024, stuckAfter: 30_000 });
    expect(config.received).toEqual({
      enabled: true,
      every: 15 * 60_000,
      lookbackDays: 3,
      perPage: 100,
      startDate: '2026-01-01',
    });
    expect(config.log.level).toBe('info');
    expect(config.emulator.port).toBe(0);
    expect(Object.keys(config.kinds).sort()).toEqual([
      'credit-note',
      'debit-note',
      'invoice',
      'payroll',
      'pos',
      'support-adjustment',
      'support-document',
    ]);
    expect(config.kinds.invoice).toEqual({ enabled: true });
    expect(config.kinds.pos).toEqual({ enabled: true, endpoint: 'E3' });
  });

  test("relative paths resolve against the configuration file's folder, not the working directory; log.file defaults to <logs>/edoc-bridge.log", async () => {
    const { file, dir } = await writeConfig(`${MINIMAL}
paths: { inbox: in, logs: var/log }
kinds: { invoice: { mapping: config/mappings/sales.csv.yaml } }
emulator: { seed: seed.json, state: /abs/emulator.json }
`);
    // configured mappings are loaded with the configuration: the relative one must be there
    await cp(
      path.join(ROOT, 'config/mappings/sales.csv.yaml'),
      path.join(dir, 'config/mappings/sales.csv.yaml'),
      { recursive: true },
    );
    const config = await loadConfig(file, {}, { cwd: os.tmpdir() });
    expect(config.paths.inbox).toBe(path.join(dir, 'in'));
    expect(config.paths.outbox).toBe(path.join(dir, 'outbox'));
    expect(config.paths.state).toBe(path.join(dir, 'state'));
    expect(config.log.file).toBe(path.join(dir, 'var/log/edoc-bridge.log'));
    expect(config.kinds.invoice.mapping).toBe(path.join(dir, 'config/mappings/sales.csv.yaml'));
    expect(config.emulator.seed).toBe(path.join(dir, 'seed.json'));
    expect(config.emulator.state).toBe('/abs/emulator.json');
  });

  test('the config file name itself resolves against the working directory', async () => {
    const { dir } = await writeConfig(MINIMAL);
    const config = await loadConfig('edoc-bridge.yaml', {}, { cwd: dir });
    expect(config.companies[0].alias).toBe('main');
  });

  test('received.every takes 30s, 15m, 1h and 1h30m', async () => {
    for (const [text, ms] of [
      ['30s', 30_000],
      ['15m', 900_000],
      ['1h', 3_600_000],
      ['1h30m', 5_400_000],
    ] as const) {
      const { file, dir } = await writeConfig(`${MINIMAL}\nreceived: { every: ${text} }\n`);
      expect((await loadConfig(file, {}, { cwd: dir })).received.every).toBe(ms);
    }
    const { err } = await loadError(`${MINIMAL}\nreceived: { every: 15x }\n`);
    expect(err.message).toContain('received.every: must be a duration');
  });

  test('the result is deeply frozen', async () => {
    const { file, dir } = await writeConfig(MINIMAL);
    const config = await loadConfig(file, {}, { cwd: dir });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.companies[0].rate)).toBe(true);
    expect(() => {
      (config.retry as { maxAttempts: number }).maxAttempts = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.companies as unknown[]).push({});
    }).toThrow(TypeError);
  });
});

describe('environment substitution', () => {
  test('${VAR} and ${VAR:-default} are replaced in values; numbers from the environment are numbers', async () => {
    const { file, dir } = await writeConfig(`
service: { timeoutMs: "\${TIMEOUT}" }
companies:
  - alias: main
    id: \${COMPANY_ID:-1001}
    nit: "900123456"
    apiKey: \${EDOC_API_KEY:-demo-key-1001}
    userId: \${USER_ID:-7}
paths: { inbox: "\${ROOT}/in", outbox: "$\${literal}" }
emulator:
  # inside { } a substitution must be quoted: braces are YAML flow syntax
  port: \${PORT:-8080}
`);
    const config = await loadConfig(
      file,
      { TIMEOUT: '5000', ROOT: '/srv/edoc', USER_ID: '', COMPANY_ID: '2002' },
      { cwd: dir },
    );
    expect(config.service.timeoutMs).toBe(5000);
    expect(config.companies[0].id).toBe(2002);
    expect(config.companies[0].apiKey).toBe('demo-key-1001');
    expect(config.companies[0].userId).toBe(7);
    expect(config.paths.inbox).toBe('/srv/edoc/in');
    expect(config.paths.outbox).toBe(path.join(dir, '${literal}'));
    expect(config.emulator.port).toBe(8080);
  });

  test('a set variable wins over the default', async () => {
    const { file, dir } = await writeConfig(
      MINIMAL.replace('key-main-0123456789', '${EDOC_API_KEY:-demo-key-1001}'),
    );
    const config = await loadConfig(file, { EDOC_API_KEY: 'live-key-42' }, { cwd: dir });
    expect(config.companies[0].apiKey).toBe('live-key-42');
  });

  test('a missing variable without default names the variable and the key path', async () => {
    const { err, file } = await loadError(
      MINIMAL.replace('key-main-0123456789', '${EDOC_API_KEY}'),
    );
    expect(err.code).toBe('EDOC_CONFIG_ENV_MISSING');
    expect(err.message).toContain(file);
    expect(err.message).toContain('companies[0].apiKey');
    expect(err.message).toContain('EDOC_API_KEY');
  });

  test('a malformed substitution is refused with its key path', async () => {
    const { err } = await loadError(`${MINIMAL}\npaths: { inbox: "\${not closed" }\n`);
    expect(err.code).toBe('EDOC_CONFIG_INVALID');
    expect(err.message).toContain('paths.inbox: malformed substitution');
  });
});

describe('errors say where and what', () => {
  test('an unknown key names the file, the key path and the closest valid key', async () => {
    const { err, file } = await loadError(
      MINIMAL.replace(
        'apiKey: key-main-0123456789',
        'apiKey: k-0123456789\n    rate: { requestPerSecond: 3 }',
      ),
    );
    expect(err.code).toBe('EDOC_CONFIG_INVALID');
    expect(err.message).toContain(file);
    expect(err.message).toContain(
      'companies[0].rate.requestPerSecond: unknown key "requestPerSecond" (did you mean "requestsPerSecond"?)',
    );
  });

  test('unknown keys are found at every level, with suggestions where one is close', async () => {
    const { err } = await loadError(`${MINIMAL}
service: { baseURL: embedded }
kinds: { invoices: { mapping: a.yaml } }
retry: { max_attempts: 3 }
colour: blue
`);
    expect(err.message).toContain(
      'service.baseURL: unknown key "baseURL" (did you mean "baseUrl"?)',
    );
    expect(err.message).toContain(
      'kinds.invoices: unknown key "invoices" (did you mean "invoice"?)',
    );
    expect(err.message).toContain(
      'retry.max_attempts: unknown key "max_attempts" (did you mean "maxAttempts"?)',
    );
    expect(err.message).toMatch(
      /colour: unknown key "colour" \(valid keys: service, companies, paths, kinds, retry, watch, read, received, log, ledger, cluster, http, alerts, masterData, emulator\)/,
    );
  });

  test('an unknown key is echoed at most 40 characters long; one that looks like a secret is not echoed at all (issue 12, item 8)', async () => {
    const long = `retryEvery${'Minute'.repeat(2_000)}`;
    const { err: longErr } = await loadError(`${MINIMAL}retry: { ${long}: 3 }\n`);
    expect(longErr.message).not.toContain('Minute'.repeat(20));
    expect(longErr.message.length).toBeLessThan(400);
    expect(longErr.message).toMatch(
      /retry: an unknown key of 12010 characters, not shown: it looks like a secret \(valid keys: maxAttempts, baseDelayMs, maxDelayMs\)/,
    );

    // a key pasted where a key name goes: equal to the configured key, or just long and random
    const pasted = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    for (const key of ['key-main-0123456789', pasted]) {
      const { err } = await loadError(`${MINIMAL}    ${key}: x\n`);
      expect(err.message).not.toContain(key);
      expect(err.message).toContain(
        `companies[0]: an unknown key of ${key.length} characters, not shown`,
      );
      expect(err.context.problems).toEqual([expect.objectContaining({ path: 'companies[0]' })]);
    }

    // an ordinary typo still gets its suggestion, and a key of moderate length is cut, not dropped
    const { err: typo } = await loadError(
      `${MINIMAL}watch: { stable_ms: 100, ${'x'.repeat(39)}: 1 }\n`,
    );
    expect(typo.message).toContain(
      'watch.stable_ms: unknown key "stable_ms" (did you mean "stableMs"?)',
    );
    expect(typo.message).toContain(`watch.${'x'.repeat(39)}: unknown key "${'x'.repeat(39)}"`);
  });

  test('a wrong type names the key path companies[0].rate.requestsPerSecond', async () => {
    const { err } = await loadError(
      MINIMAL.replace(
        'apiKey: key-main-0123456789',
        'apiKey: k-0123456789\n    rate: { requestsPerSecond: five }',
      ),
    );
    expect(err.message).toMatch(/companies\[0\]\.rate\.requestsPerSecond: expected number/);
    expect(err.context.problems).toEqual([
      expect.objectContaining({ path: 'companies[0].rate.requestsPerSecond' }),
    ]);
  });

  test('a missing required key says it is required', async () => {
    const { err } = await loadError(
      'companies:\n  - alias: main\n    nit: "900123456"\n    apiKey: k-0123456789\n',
    );
    expect(err.message).toContain('companies[0].id: is required');
  });

  test('not valid YAML names the file and the line', async () => {
    const { err, file } = await loadError('companies:\n  - alias: main\n   id: [1001\n');
    expect(err.code).toBe('EDOC_CONFIG_INVALID');
    expect(err.message).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: not valid YAML`),
    );
  });

  test('a missing file is EDOC_CONFIG_NOT_FOUND naming the file', async () => {
    const err = await loadConfig('/nonexistent/edoc-bridge.yaml', {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EDOC_CONFIG_NOT_FOUND' });
    expect((err as Error).message).toContain('/nonexistent/edoc-bridge.yaml');
  });

  test('an error message never carries an API key', async () => {
    const { err } = await loadError(`
companies:
  - alias: main
    id: 1001
    nit: "900123456-8"
    apiKey: super-secret-value-1234
    rate: { concurrency: many }
  - alias: other
    id: 1002
    nit: "800123456"
    apiKey: 12345
`);
    expect(err.message).toContain('companies[0].nit');
    expect(err.message).toContain('companies[1].apiKey');
    expect(err.message).not.toContain('super-secret-value-1234');
    expect(JSON.stringify(err.context)).not.toContain('super-secret-value-1234');
  });
});

describe('api keys', () => {
  test('exactly one of apiKey or apiKeyFile: neither is refused', async () => {
    const { err } = await loadError(
      'companies:\n  - { alias: main, id: 1001, nit: "900123456" }\n',
    );
    expect(err.message).toContain('companies[0].apiKey: set exactly one of apiKey or apiKeyFile');
  });

  test('exactly one of apiKey or apiKeyFile: both is refused', async () => {
    const { err } = await loadError(
      'companies:\n  - { alias: main, id: 1001, nit: "900123456", apiKey: abcd1234, apiKeyFile: main.key }\n',
    );
    expect(err.message).toContain(
      'companies[0].apiKeyFile: set only one of apiKey or apiKeyFile, not both',
    );
  });

  test("apiKeyFile is read (relative to the configuration file's folder) and trimmed", async () => {
    const { file, dir } = await writeConfig(
      'companies:\n  - { alias: main, id: 1001, nit: "900123456", apiKeyFile: keys/main.key }\n',
    );
    await import('node:fs/promises').then((fs) => fs.mkdir(path.join(dir, 'keys')));
    await writeFile(path.join(dir, 'keys/main.key'), '  file-key-7777\n\n');
    const config = await loadConfig(file, {}, { cwd: os.tmpdir() });
    expect(config.companies[0].apiKey).toBe('file-key-7777');
    expect(config.companies[0].apiKeyFile).toBe(path.join(dir, 'keys/main.key'));
  });

  test('an unreadable apiKeyFile names the company and the file', async () => {
    const { err } = await loadError(
      'companies:\n  - { alias: main, id: 1001, nit: "900123456", apiKeyFile: missing.key }\n',
    );
    expect(err.code).toBe('EDOC_CONFIG_KEY_FILE');
    expect(err.message).toContain('company "main"');
    expect(err.message).toContain('missing.key');
    expect(err.message).toContain('companies[0].apiKeyFile');
  });

  test('an empty apiKeyFile is refused', async () => {
    const { file, dir } = await writeConfig(
      'companies:\n  - { alias: main, id: 1001, nit: "900123456", apiKeyFile: empty.key }\n',
    );
    await writeFile(path.join(dir, 'empty.key'), ' \n');
    const err = await loadConfig(file, {}, { cwd: dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EDOC_CONFIG_KEY_FILE' });
    expect((err as Error).message).toContain('is empty');
  });
});

describe('api keys an HTTP header cannot carry', () => {
  test('an apiKey with an invisible U+200B is refused at load, naming the key path and the character, never the key', async () => {
    const { err } = await loadError(
      'companies:\n  - { alias: main, id: 1001, nit: "900123456", apiKey: "${EDOC_KEY}" }\n',
      { EDOC_KEY: 'abcd1234\u200befgh5678' },
    );
    expect(err.code).toBe('EDOC_CONFIG_INVALID');
    // character 9 of 17: the 8 characters before it count from 1
    expect(err.message).toContain(
      'companies[0].apiKey: the API key of company "main" holds an invisible zero-width space (U+200B) at character 9 of 17',
    );
    expect(err.message).not.toContain('abcd1234');
    expect(err.message).not.toContain('efgh5678');
  });

  test('an apiKeyFile whose key holds a control character or a no-break space is refused, naming companies[i].apiKeyFile', async () => {
    const { file, dir } = await writeConfig(
      'companies:\n  - { alias: main, id: 1001, nit: "900123456", apiKeyFile: main.key }\n' +
        '  - { alias: other, id: 1002, nit: "900123457", apiKeyFile: other.key }\n',
    );
    await writeFile(path.join(dir, 'main.key'), 'good-key-0001\n');
    await writeFile(path.join(dir, 'other.key'), 'bad\u00a0key\n');
    const err = await loadConfig(file, {}, { cwd: dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EDOC_CONFIG_INVALID' });
    expect((err as Error).message).toContain(
      'companies[1].apiKeyFile: the API key of company "other" holds a no-break space (U+00A0) at character 4',
    );
    expect((err as Error).message).not.toContain('bad');
  });

  test('a key read without its secrets (read-only commands) is not looked at', async () => {
    const { file, dir } = await writeConfig(
      'companies:\n  - { alias: main, id: 1001, nit: "900123456", apiKey: "${EDOC_KEY}" }\n',
    );
    const config = await loadConfig(
      file,
      { EDOC_KEY: 'abc\u200bdef' },
      { cwd: dir, secrets: false },
    );
    expect(config.companies[0].apiKey).toBe('');
  });
});

describe('service.baseUrl', () => {
  const withUrl = (url: string, extra = '') => `service: { baseUrl: "${url}"${extra} }\n${MINIMAL}`;

  test('plain http to a host other than loopback is refused', async () => {
    const { err } = await loadError(withUrl('http://api.example.com'));
    expect(err.message).toContain('service.baseUrl: plain http to api.example.com');
    expect(err.message).toContain('allowInsecureHttp');
  });

  test('plain http is accepted on loopback, or with allowInsecureHttp: true; https always', async () => {
    for (const text of [
      withUrl('http://127.0.0.1:8080'),
      withUrl('http://localhost:1234/base'),
      withUrl('http://[::1]:99'),
      withUrl('http://10.0.0.5', ', allowInsecureHttp: true'),
      withUrl('https://api.example.com'),
    ]) {
      const { file, dir } = await writeConfig(text);
      await expect(loadConfig(file, {}, { cwd: dir })).resolves.toBeDefined();
    }
  });

  test('a user name or password in the URL is refused naming the key, never echoed', async () => {
    for (const url of [
      'https://edoc:s3cret-proxy-pass@proxy.example.com/api',
      'http://s3cret-proxy-pass@127.0.0.1:8080',
    ]) {
      const { err } = await loadError(withUrl(url));
      expect(err.code).toBe('EDOC_CONFIG_INVALID');
      expect(err.message).toContain('service.baseUrl: must not carry a user name or password');
      expect(`${err.message}${JSON.stringify(err.context)}`).not.toContain('s3cret-proxy-pass');
    }
  });

  test('a URL of another scheme, or not a URL, is refused', async () => {
    expect((await loadError(withUrl('ftp://example.com'))).err.message).toContain(
      'service.baseUrl: must use https',
    );
    expect((await loadError(withUrl('example.com'))).err.message).toContain(
      'service.baseUrl: must be "embedded" or an http(s) URL',
    );
  });
});

describe('companies', () => {
  test('aliases and ids are unique', async () => {
    const { err } = await loadError(`
companies:
  - { alias: main, id: 1001, nit: "900123456", apiKey: aaaa1111 }
  - { alias: Main, id: 1002, nit: "900123457", apiKey: bbbb2222 }
  - { alias: third, id: 1001, nit: "900123458", apiKey: cccc3333 }
`);
    expect(err.message).toContain('companies[1].alias: "Main" is already used by companies[0]');
    expect(err.message).toContain('companies[2].id: 1001 is already used by companies[0]');
  });

  test('an alias must be folder-safe and not a kind or outbox folder name', async () => {
    const one = (alias: string) =>
      `companies:\n  - { alias: "${alias}", id: 1001, nit: "900123456", apiKey: aaaa1111 }\n`;
    expect((await loadError(one('a/b'))).err.message).toContain(
      'companies[0].alias: must be 1-64 ASCII letters',
    );
    expect((await loadError(one('..'))).err.message).toContain('companies[0].alias');
    // a letter outside ASCII is refused, and the message says which letters are meant
    expect((await loadError(one('bogotá'))).err.message).toContain(
      'companies[0].alias: must be 1-64 ASCII letters (A-Z, a-z)',
    );
    expect((await loadError(one('invoice'))).err.message).toContain(
      'companies[0].alias: is reserved',
    );
  });

  test('at least one company is configured', async () => {
    const { err } = await loadError('companies: []\n');
    expect(err.message).toContain('companies: configure at least one company');
  });
});

describe('YAML conveniences', () => {
  test('anchors and merge keys let companies share settings; top-level x-* keys hold anchors', async () => {
    const { file, dir } = await writeConfig(`
x-company: &company
  rate: { requestsPerSecond: 2, concurrency: 1 }
  userId: 7
companies:
  - { <<: *company, alias: one, id: 1, nit: "900000001", apiKey: aaaa1111 }
  - { <<: *company, alias: two, id: 2, nit: "900000002", apiKey: bbbb2222, userId: 9 }
`);
    const config = await loadConfig(file, {}, { cwd: dir });
    expect(config.companies[0]).toMatchObject({
      alias: 'one',
      userId: 7,
      rate: { requestsPerSecond: 2, concurrency: 1 },
    });
    expect(config.companies[1]).toMatchObject({
      alias: 'two',
      userId: 9,
      rate: { requestsPerSecond: 2, concurrency: 1 },
    });
    expect(config).not.toHaveProperty('x-company');
  });

  test('duplicate keys are refused with their line', async () => {
    const dup = await writeConfig(`${MINIMAL}\nlog: { level: info }\nlog: { level: debug }\n`);
    const err = await loadConfig(dup.file, {}, { cwd: dup.dir }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(/:\d+:\d+: not valid YAML: Map keys must be unique/);
  });
});

describe('the shipped configuration', () => {
  test('config/edoc-bridge.yaml loads: embedded service, company main with the demo key unless EDOC_API_KEY is set', async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const config = await loadConfig('config/edoc-bridge.yaml', {}, { cwd: root });
    expect(config.service.baseUrl).toBe('embedded');
    expect(config.companies).toHaveLength(1);
    expect(config.companies[0]).toMatchObject({
      alias: 'main',
      id: 1001,
      nit: '900123456',
      apiKey: 'demo-key-1001',
      userId: 7,
    });
    expect(config.kinds['credit-note'].mapping).toBe(
      path.join(root, 'config/mappings/sales.csv.yaml'),
    );
    expect(config.kinds.payroll.mapping).toBe(path.join(root, 'config/mappings/payroll.csv.yaml'));
    expect(config.kinds['support-document'].mapping).toBe(
      path.join(root, 'config/mappings/support-document.csv.yaml'),
    );
    expect(config.paths).toEqual({
      inbox: path.join(root, 'inbox'),
      outbox: path.join(root, 'outbox'),
      state: path.join(root, 'state'),
      logs: path.join(root, 'logs'),
    });
    expect(config.emulator).toMatchObject({
      seed: path.join(root, 'config/emulator-seed.json'),
      state: path.join(root, 'state/emulator-state.json'),
    });
    const live = await loadConfig(
      'config/edoc-bridge.yaml',
      { EDOC_API_KEY: 'k-live-1' },
      { cwd: root },
    );
    expect(live.companies[0].apiKey).toBe('k-live-1');
  });

  test("relative paths resolve against the configuration file's folder, whatever the working directory (a service's is elsewhere)", async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'edoc-cwd-'));
    try {
      const config = await loadConfig(
        path.join(root, 'config/edoc-bridge.yaml'),
        {},
        { cwd: elsewhere },
      );
      expect(config.kinds.pos.mapping).toBe(path.join(root, 'config/mappings/pos.csv.yaml'));
      expect(config.paths.state).toBe(path.join(root, 'state'));
      expect(config.emulator.seed).toBe(path.join(root, 'config/emulator-seed.json'));
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
