/** `--state`: the emulator's world survives a restart; broken seed and state files are refused with their codes. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { isEdocError } from '../../src/errors.js';
import { AUTH, call, documents, emulator, envelopeOf, fixture, testSeed } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edoc-emulator-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('state persistence', () => {
  test('issued documents, ranges, consecutives and commissioning survive a restart with the state file', async () => {
    const stateFile = join(dir, 'emulator-state.json');
    const first = await emulator(undefined, { stateFile });
    await call(first, 'E1', { headers: AUTH, body: fixture('invoice.json') });
    await call(first, 'E5', {
      headers: AUTH,
      body: { ...fixture('support-document.json'), SerieNumber: undefined },
    });
    await call(first, 'E11', {
      headers: AUTH,
      body: {
        Prefix: 'FV',
        AuthorizationNumber: '1',
        ValidFrom: '2026-01-01T00:00:00',
        ValidTo: '2027-01-01T00:00:00',
        StartValue: 1,
        EndValue: 9,
        DocumentType: 'Invoice',
      },
    });
    await call(first, 'E8', { headers: AUTH });
    await first.close();
    await first.close();
    expect(JSON.parse(await readFile(stateFile, 'utf8'))).toMatchObject({ version: 1 });

    const second = await emulator(undefined, { stateFile });
    try {
      expect(await documents(second)).toHaveLength(2);
      const again = envelopeOf(
        await call(second, 'E1', { headers: AUTH, body: fixture('invoice.json') }),
      );
      expect(again.Errors).toEqual(['Regla: 90, Rechazo: Documento procesado anteriormente.']);
      const next = envelopeOf(
        await call(second, 'E5', {
          headers: AUTH,
          body: { ...fixture('support-document.json'), SerieNumber: undefined },
        }),
      );
      expect(next.Warning[0]).toContain('DS2');
      const ranges = envelopeOf(
        await call(second, 'E10', { headers: AUTH, query: { nit: '900123456' } }),
      ).ResultData as Array<{ Prefix: string }>;
      expect(ranges.map((r) => r.Prefix)).toContain('FV');
      expect(envelopeOf(await call(second, 'E8', { headers: AUTH })).ResultData).toContain(
        'ya se encuentra habilitada',
      );
    } finally {
      await second.close();
    }
  });

  test('a company added to the seed after the state was saved joins the saved state', async () => {
    const stateFile = join(dir, 'state.json');
    const first = await emulator(undefined, { stateFile });
    await call(first, 'E1', { headers: AUTH, body: fixture('invoice.json') });
    await first.close();
    const second = await emulator(
      (seed) => {
        seed.companies.push({
          ...seed.companies[0],
          id: 1003,
          apiKey: 'key-1003',
          receivedDocuments: [],
        });
      },
      { stateFile },
    );
    try {
      const r = await call(second, 'E1', {
        headers: { 'x-api-key': 'key-1003', 'x-company-id': '1003' },
        body: fixture('invoice.json'),
      });
      expect(envelopeOf(r).IsValid).toBe(true);
      expect(await documents(second)).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  test('the state file is written shortly after a change, before close', async () => {
    const stateFile = join(dir, 'state.json');
    const emu = await emulator(undefined, { stateFile });
    try {
      await call(emu, 'E1', { headers: AUTH, body: fixture('invoice.json') });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const saved = JSON.parse(await readFile(stateFile, 'utf8')) as { documents: unknown[] };
      expect(saved.documents).toHaveLength(1);
    } finally {
      await emu.close();
    }
  });

  test('a state file that is not valid is refused with EDOC_EMULATOR_STATE_INVALID', async () => {
    const stateFile = join(dir, 'broken.json');
    await writeFile(stateFile, '{"version": 1, "companies": 3}');
    const err: unknown = await startEmulator({ seed: testSeed(), stateFile }).catch(
      (e: unknown) => e,
    );
    expect(isEdocError(err, 'EDOC_EMULATOR_STATE_INVALID')).toBe(true);
  });

  test('a seed that is not valid is refused with EDOC_EMULATOR_SEED_INVALID naming the key path', async () => {
    const err: unknown = await startEmulator({
      seed: testSeed((seed) => {
        seed.companies[0].nit = 'abc';
      }),
    }).catch((e: unknown) => e);
    expect(isEdocError(err, 'EDOC_EMULATOR_SEED_INVALID')).toBe(true);
    expect((err as Error).message).toContain('companies.0.nit');
    const file = join(dir, 'seed.json');
    await writeFile(file, '{ not json');
    const fromFile: unknown = await startEmulator({ seed: file }).catch((e: unknown) => e);
    expect(isEdocError(fromFile, 'EDOC_EMULATOR_SEED_INVALID')).toBe(true);
  });
});
