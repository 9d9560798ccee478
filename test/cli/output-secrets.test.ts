/**
 * A company's API key inside outside text (a file named after it) is `[redacted]` in what the commands
 * print, as in the log: `status` and `show` (which load the configuration without its keys) read the
 * configuration file's secrets as far as they can. Child processes against an emulator on port 0.
 */
import { beforeAll, describe, expect } from 'vitest';
import { runCli } from '../helpers/cli-runner.js';
import { buildCli, COMPANY_MAIN } from '../helpers/daemon-harness.js';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(async () => {
  await buildCli();
}, BUILD_TIMEOUT_MS);

const NAME = `export ${COMPANY_MAIN.apiKey}.json`;

describe('secrets in what the commands print', () => {
  test('status and show print a file named after an API key with the key redacted', async ({
    daemonProject,
  }) => {
    const { project: p, startDaemon } = await daemonProject({
      faults: { errorRate: 1 },
      companies: [COMPANY_MAIN],
      retry: { maxAttempts: 1, baseDelayMs: 20, maxDelayMs: 50 },
    });
    const daemon = await startDaemon();
    await p.drop('invoice', NAME, jsonText([invoice(990_300_031)]));
    await daemon.waitForLog((l) => l.msg === 'file complete');

    for (const args of [
      ['status'],
      ['status', '--json'],
      ['show', NAME],
      ['show', NAME, '--json'],
    ]) {
      const run = await runCli(p, args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout, args.join(' ')).not.toContain(COMPANY_MAIN.apiKey);
      expect(run.stdout, args.join(' ')).toContain('export [redacted].json');
    }
  });
});
