/** `ledger` and `cluster`: parsed with their defaults, and the ledger URL's password kept secret. */
import { describe, expect, test } from 'vitest';
import { loadConfig, redactConfig } from '../../src/config/index.js';
import { bestEffortSecrets, configSecrets, secretScrubberOf } from '../../src/config/secrets.js';
import { isEdocError } from '../../src/errors.js';
import { MINIMAL, writeConfig } from './helpers.js';

const PASSWORD = 'pg-Secret/with:odd@chars';
const ENCODED = encodeURIComponent(PASSWORD);

async function loadError(text: string, env: NodeJS.ProcessEnv = {}): Promise<Error> {
  const { file, dir } = await writeConfig(text);
  try {
    await loadConfig(file, env, { cwd: dir });
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the configuration to be refused');
}

describe('ledger and cluster settings', () => {
  test('without them: no ledger.url (the SQLite ledger in paths.state), leases of 15 s, no node name', async () => {
    const { file, dir } = await writeConfig(MINIMAL);
    const config = await loadConfig(file, {}, { cwd: dir });
    expect(config.ledger).toEqual({});
    expect(config.cluster).toEqual({ leaseMs: 15_000 });
  });

  test('a postgres URL with its password from ${ENV}, sslmode, a node name and a lease from the environment', async () => {
    const { file, dir } = await writeConfig(`${MINIMAL}
ledger: { url: "postgres://edoc:\${PGPASS}@db.example:5432/edoc?sslmode=verify-full" }
cluster: { node: node-a.example, leaseMs: "\${LEASE}" }
`);
    const config = await loadConfig(file, { PGPASS: ENCODED, LEASE: '20000' }, { cwd: dir });
    expect(config.ledger.url).toBe(
      `postgres://edoc:${ENCODED}@db.example:5432/edoc?sslmode=verify-full`,
    );
    expect(config.cluster).toEqual({ node: 'node-a.example', leaseMs: 20_000 });
  });

  test.each([
    ['mysql://u@h/d', /ledger\.url: must be a postgres:\/\/ URL, not mysql:/],
    [`postgres://u:${ENCODED}@[oops/d`, /ledger\.url: must be a URL such as postgres:/],
    [`postgres://u:${ENCODED}@h/d?sslmode=sometimes`, /ledger\.url: sslmode must be one of/],
    ['""', /ledger\.url: must not be empty/],
  ])('refuses ledger.url %s naming the key, never quoting the URL', async (url, message) => {
    const err = await loadError(
      `${MINIMAL}\nledger: { url: ${url.startsWith('"') ? url : JSON.stringify(url)} }\n`,
    );
    expect(isEdocError(err, 'EDOC_CONFIG_INVALID')).toBe(true);
    expect(err.message).toMatch(message);
    expect(
      JSON.stringify({ message: err.message, context: (err as { context?: unknown }).context }),
    ).not.toContain(ENCODED);
  });

  test.each([
    ['ledger: { uri: "postgres://h/d" }', /ledger\.uri.*url/],
    ['cluster: { leaseMs: 500 }', /cluster\.leaseMs/],
    ['cluster: { node: "bad name" }', /cluster\.node: must be 1-100 ASCII letters/],
    ['cluster: { nodes: a }', /cluster\.nodes.*node/],
  ])('refuses %s', async (yaml, message) => {
    const err = await loadError(`${MINIMAL}\n${yaml}\n`);
    expect(isEdocError(err, 'EDOC_CONFIG_INVALID')).toBe(true);
    expect(err.message).toMatch(message);
  });
});

describe("the ledger URL's password is a secret", () => {
  const yaml = `${MINIMAL}\nledger: { url: "postgres://edoc:\${PGPASS}@db.example:5432/edoc" }\n`;

  test('redactConfig (the effective-configuration log line) shows it as [redacted], keeping the rest of the URL', async () => {
    const { file, dir } = await writeConfig(yaml);
    const config = await loadConfig(file, { PGPASS: ENCODED }, { cwd: dir });
    const redacted = redactConfig(config);
    expect(redacted.ledger).toEqual({ url: 'postgres://edoc:[redacted]@db.example:5432/edoc' });
    const text = JSON.stringify(redacted);
    expect(text).not.toContain(ENCODED);
    expect(text).not.toContain(PASSWORD);
    expect(config.ledger.url).toContain(ENCODED);
  });

  test('the scrubber of every log line and error knows it, as written and URL-encoded', async () => {
    const { file, dir } = await writeConfig(yaml);
    const config = await loadConfig(file, { PGPASS: ENCODED }, { cwd: dir });
    expect(configSecrets(config)).toEqual(expect.arrayContaining([PASSWORD, ENCODED]));
    const scrubber = secretScrubberOf(config);
    expect(scrubber.scrub(`connect to ${config.ledger.url} failed; password was ${PASSWORD}`)).toBe(
      'connect to postgres://edoc:[redacted]@db.example:5432/edoc failed; password was [redacted]',
    );
  });

  test('an error line of a configuration that did not load is scrubbed of it too', async () => {
    const { file, dir } = await writeConfig(`${yaml}\nbogus: 1\n`);
    expect(bestEffortSecrets(file, { PGPASS: ENCODED }, dir)).toEqual(
      expect.arrayContaining([PASSWORD, ENCODED]),
    );
  });
});
