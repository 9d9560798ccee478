/**
 * Issue 8 reliability suite 2, full size (`npm run torture`): the bad-input
 * corpus with a 32 MB line, nesting 200,000 deep and a 20,000-document file
 * deleted while it is read. The same corpus runs in `npm test` at smaller sizes.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { buildCli } from '../helpers/daemon-harness.js';
import { recordRun } from '../helpers/torture-project.js';
import { runBadInputScenario } from './scenarios/bad-input.js';
import { show } from './show.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

describe('bad input (torture)', () => {
  test('every broken file gets a clear report, every good document is accepted, the daemon never restarts and no key is on disk', async ({
    annotate,
  }) => {
    const report = await runBadInputScenario({
      hugeLineBytes: 32_000_000,
      depth: 200_000,
      deletedDocuments: 20_000,
      timeoutMs: 180_000,
    });
    recordRun('bad input (torture)', report);
    await show(annotate, `bad input (torture): ${JSON.stringify(report)}`);
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
  }, 600_000);
});
