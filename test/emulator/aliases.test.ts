/**
 * Every documented path and alias of the endpoint table answers; anything else
 * is the framework's 404/405. On the alias path of every operation that has one
 * (E2, E9, E10, E11, E12), each row of that operation in the shared result-code
 * table answers exactly as on the primary path.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { ENDPOINTS, OPERATION_IDS, POS_TIPOS } from '../../src/service/endpoints.js';
import { RESULT_CODE_CASES } from '../cases/result-codes.js';
import { AUTH, call, emulator, posForm } from './helpers.js';
import { SCENARIOS, expectRow } from './result-code-scenarios.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => {
  await emu.close();
});

describe('paths', () => {
  for (const op of OPERATION_IDS) {
    const forms =
      ENDPOINTS[op].alias === undefined ? (['primary'] as const) : (['primary', 'alias'] as const);
    for (const pathForm of forms) {
      test(`${op} answers on its ${pathForm} path`, async () => {
        const r =
          op === 'E3'
            ? await call(emu, op, { form: posForm({ companyId: '1001', prefijo: 'POS' }) })
            : await call(emu, op, {
                pathForm,
                headers: { ...AUTH, 'x-user-id': '7' },
                query: {
                  nit: '900123456',
                  start_date: '2026-11-01',
                  end_date: '2026-11-30',
                  companyId: '1001',
                },
                body: ENDPOINTS[op].method === 'POST' ? {} : undefined,
              });
        expect([404, 405]).not.toContain(r.status);
        expect(typeof r.body).toBe('object');
      });
    }
  }

  for (const tipo of [...POS_TIPOS, 'nota-ajuste']) {
    test(`E3 answers for tipo ${tipo}`, async () => {
      const r = await call(emu, 'E3', {
        tipo,
        form: posForm({ companyId: '1001', prefijo: 'POS' }),
      });
      expect(r.status).toBe(200);
      expect(r.body).toHaveProperty('authorityStatus');
    });
  }

  test('an unknown path is a framework 404 and a wrong method a framework 405', async () => {
    const missing = await fetch(`${emu.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 404, error: 'Not Found', path: '/nope' });
    const wrong = await fetch(`${emu.url}${ENDPOINTS.E10.primary}`, { method: 'POST' });
    expect(wrong.status).toBe(405);
  });
});

describe('result codes on the alias paths', () => {
  const aliased = OPERATION_IDS.filter((op) => ENDPOINTS[op].alias !== undefined);

  test('the operations with an alias path are E2, E9, E10, E11 and E12, and each has rows in the result-code table', () => {
    expect(aliased).toEqual(['E2', 'E9', 'E10', 'E11', 'E12']);
    for (const op of aliased)
      expect(RESULT_CODE_CASES.filter((row) => row.op === op).length).toBeGreaterThan(0);
  });

  for (const row of RESULT_CODE_CASES.filter((c) => ENDPOINTS[c.op].alias !== undefined)) {
    test(`${row.id} on ${ENDPOINTS[row.op].alias ?? ''}: ${row.meaning}`, async () => {
      const scenario = SCENARIOS[row.id];
      expect(scenario, `no scenario for ${row.id}`).toBeDefined();
      const aliasEmu = await emulator(scenario.edit);
      try {
        const result = await scenario.run(aliasEmu, 'alias');
        expect(result.path).toBe(ENDPOINTS[row.op].alias);
        expectRow(row, result, 'alias');
      } finally {
        await aliasEmu.close();
      }
    });
  }
});
