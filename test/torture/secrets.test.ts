/**
 * Issue 8 reliability suite 4, full size (`npm run torture`): the secrets run
 * with 1,000 documents; every other torture suite also searches its project.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { recordRun } from '../helpers/torture-project.js';
import { runSecretsScenario } from './scenarios/secrets.js';
import { show } from './show.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('secrets (torture)', () => {
  test('1,000 documents at trace level under faults, a refused key, SIGHUP and SIGKILL: no key in any file', async ({
    annotate,
  }) => {
    const report = await runSecretsScenario({ documents: 1_000 });
    recordRun('secrets (torture)', report);
    await show(annotate, JSON.stringify(report));
    expect(report.problems).toEqual([]);
  }, 300_000);
});
