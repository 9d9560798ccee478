/**
 * Commands that never call the service (status, validate, retry, resolve,
 * resend, submit --dry-run) do not need the companies' API keys: an unset
 * `${EDOC_API_KEY}` or an unreadable apiKeyFile does not stop them. Commands
 * that call the service still refuse the configuration, naming the key.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import {
  buildCli,
  COMPANY_MAIN,
  createProject,
  type Project,
  ROOT,
} from '../helpers/daemon-harness.js';

const projects: Project[] = [];

beforeAll(async () => {
  await buildCli();
}, 240_000);

afterAll(async () => {
  for (const p of projects) await p.remove();
});

/** A project whose only company takes its key from `secret` (YAML value of companies[0]). */
async function project(secret: Record<string, string>): Promise<Project> {
  const p = await createProject({
    baseUrl: 'embedded',
    companies: [COMPANY_MAIN],
    kinds: { invoice: { mapping: path.join(ROOT, 'config/mappings/sales.csv.yaml') } },
  });
  projects.push(p);
  const config = parse(await readFile(p.configFile, 'utf8')) as {
    companies: Record<string, unknown>[];
  };
  delete config.companies[0].apiKey;
  Object.assign(config.companies[0], secret);
  await writeFile(p.configFile, stringify(config));
  return p;
}

describe('commands that never call the service need no secrets', () => {
  test('status, validate and submit --dry-run work with apiKey: ${EDOC_API_KEY} unset; ranges list refuses naming the variable', async () => {
    const p = await project({ apiKey: '${EDOC_API_KEY}' });
    const status = await runCli(p, ['status']);
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);

    const example = path.join(ROOT, 'examples/invoices.csv');
    const validate = await runCli(p, ['validate', example, '--kind', 'invoice']);
    expect(validate.stderr).not.toContain('EDOC_CONFIG_ENV_MISSING');
    expect(validate.code, validate.stderr).toBe(0);
    const dry = await runCli(p, ['submit', example, '--kind', 'invoice', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);

    const ranges = await runCli(p, ['ranges', 'list']);
    expect(ranges.code).toBe(2);
    expect(ranges.stderr).toMatch(
      /companies\[0\]\.apiKey: environment variable EDOC_API_KEY is not set.*\[EDOC_CONFIG_ENV_MISSING\]/,
    );
  });

  test('status, retry and resend work when the apiKeyFile cannot be read; run refuses naming it', async () => {
    const p = await project({ apiKeyFile: path.join(ROOT, 'no-such-dir/main.key') });
    const status = await runCli(p, ['status']);
    expect(status.code, status.stderr).toBe(0);
    const retry = await runCli(p, ['retry', '--file', 'nada.csv']);
    expect(retry.stderr).not.toContain('EDOC_CONFIG_KEY_FILE');
    // resend only reads the ledger and copies an archived original: the running daemon sends
    const resend = await runCli(p, ['resend', '--file', 'nada.csv']);
    expect(resend.stderr).not.toContain('EDOC_CONFIG_KEY_FILE');
    expect(resend.stdout + resend.stderr).toContain('nothing to resend');
    const run = await runCli(p, ['run'], { timeoutMs: 20_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('[EDOC_CONFIG_KEY_FILE]');
  });
});
