/**
 * Reliability suite 2 in `npm test`: the whole bad-input corpus (it is cheap);
 * `npm run torture` runs it with a bigger huge line, deeper nesting and a bigger
 * file deleted while read (test/torture/bad-input.test.ts).
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { recordRun } from '../helpers/torture-project.js';
import { runBadInputScenario } from '../torture/scenarios/bad-input.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('bad input', () => {
  test('every broken file gets a clear report, every good document is accepted, the daemon never restarts and no key is on disk', async ({
    annotate,
  }) => {
    const report = await runBadInputScenario({
      hugeLineBytes: 2_000_000,
      depth: 20_000,
      deletedDocuments: 3_000,
      timeoutMs: 40_000,
    });
    recordRun('bad input (short)', report);
    await annotate(`bad input: ${JSON.stringify(report)}`);
    expect(report.problems).toEqual([]);
    expect(report.badFiles).toBeGreaterThanOrEqual(50);
    expect(report).toMatchObject({
      restarts: 0,
      crashLines: 0,
      issuedInvalid: 0,
      duplicated: 0,
      secretsFound: 0,
    });
    expect(report.acceptedGood).toBe(report.goodDocuments);
  }, 120_000);
});
