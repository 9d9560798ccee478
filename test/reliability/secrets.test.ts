/**
 * Reliability suite 4 in `npm test`: after a run that makes the daemon say as
 * much as it can (trace level, faults, a refused key, SIGHUP, SIGKILL, broken
 * input), no byte of either key is in any file under the project. The other
 * reliability tests run the same search on their own projects.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { recordRun } from '../helpers/torture-project.js';
import { runSecretsScenario } from '../torture/scenarios/secrets.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('secrets', () => {
  test('trace logging, faults, a refused key, a key file reloaded by SIGHUP and a SIGKILL: no key in any log, outbox or ledger file', async ({
    annotate,
  }) => {
    const report = await runSecretsScenario({ documents: 40 });
    recordRun('secrets (short)', report);
    await annotate(JSON.stringify(report));
    expect(report.problems).toEqual([]);
    expect(report.details.filesSearched).toBeGreaterThan(5);
    // The most verbose level really was on (retries are logged at debug).
    expect(report.details.debugLines).toBeGreaterThan(0);
  }, 90_000);
});
