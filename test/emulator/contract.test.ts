/**
 * Every row of the shared result-code table (test/cases/result-codes.ts),
 * provoked over real HTTP against the emulator on the primary paths: transport
 * status, ResultCode, IsValid (or authorityStatus) as the row says, and
 * classify() gives the row's outcome. A row without a scenario fails the suite.
 * The scenarios live in result-code-scenarios.ts (aliases.test.ts runs them on
 * the alias paths).
 */
import { describe, expect, test } from 'vitest';
import { RESULT_CODE_CASES } from '../cases/result-codes.js';
import { emulator } from './helpers.js';
import { SCENARIOS, expectRow } from './result-code-scenarios.js';

describe('every row of the result-code table is reproduced by the emulator', () => {
  test('every row has a scenario', () => {
    const missing = RESULT_CODE_CASES.map((c) => c.id).filter((id) => !(id in SCENARIOS));
    expect(missing).toEqual([]);
  });

  for (const row of RESULT_CODE_CASES) {
    test(`${row.id}: ${row.meaning}`, async () => {
      const scenario = SCENARIOS[row.id];
      expect(scenario, `no scenario for ${row.id}`).toBeDefined();
      const emu = await emulator(scenario.edit);
      try {
        expectRow(row, await scenario.run(emu, 'primary'), 'primary');
      } finally {
        await emu.close();
      }
    });
  }
});
