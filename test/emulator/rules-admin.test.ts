/** Commissioning (E7–E9), numbering ranges (E10–E11) and received documents (E12), over real HTTP. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { AUTH, BAD_KEY, call, emulator, envelopeOf, fixture } from './helpers.js';

type Json = Record<string, unknown>;
let emu: RunningEmulator;
beforeEach(async () => {
  emu = await emulator();
});
afterEach(async () => {
  await emu.close();
});

const setting = (key: string, value: string) => (seed: { companies: Json[] }) => {
  (seed.companies[0].commissioning as Json)[key] = value;
};
const newRange = (patch: Json = {}): Json => ({
  Prefix: 'FV',
  AuthorizationNumber: '18764000009',
  ValidFrom: '2026-01-01T00:00:00',
  ValidTo: '2027-01-01T00:00:00',
  StartValue: 1,
  EndValue: 1000,
  DocumentType: 'Invoice',
  ...patch,
});

describe('E7 POS commissioning', () => {
  test('E7 sends cantidad 1 by default and enables when all are accepted', async () => {
    const r = await call(emu, 'E7', { query: { companyId: '1001' } });
    expect(r.body).toMatchObject({
      companyId: 1001,
      solicitados: 1,
      aceptados: 1,
      rechazados: 0,
      habilitado: true,
    });
  });

  test('E7 partial accepts half (rounded down) and does not enable', async () => {
    const partial = await emulator(setting('pos', 'partial'));
    try {
      const r = await call(partial, 'E7', {
        query: { companyId: '1001', cantidad: '5', testId: 'T-1' },
      });
      expect(r.body).toMatchObject({
        solicitados: 5,
        aceptados: 2,
        rechazados: 3,
        habilitado: false,
      });
      expect((r.body as Json).detalle).toHaveLength(5);
    } finally {
      await partial.close();
    }
  });

  test('E7 with none accepted says so; error answers HTTP 500; unknown company 404; missing companyId 400', async () => {
    const failing = await emulator(setting('pos', 'fail'));
    const broken = await emulator(setting('pos', 'error'));
    try {
      const r = await call(failing, 'E7', { query: { companyId: '1001', cantidad: '2' } });
      expect(r.body).toMatchObject({
        aceptados: 0,
        habilitado: false,
        mensaje: expect.stringContaining('Ningún documento'),
      });
      expect((await call(broken, 'E7', { query: { companyId: '1001' } })).status).toBe(500);
      expect((await call(emu, 'E7', { query: { companyId: '4242' } })).status).toBe(404);
      expect((await call(emu, 'E7')).status).toBe(400);
    } finally {
      await failing.close();
      await broken.close();
    }
  });
});

describe('E8 / E9 commissioning', () => {
  test('E8 and E9 answer IsValid true when the company is already enabled', async () => {
    const enabled = await emulator((seed) => {
      seed.companies[0].commissioning = { invoice: 'enabled', payroll: 'enabled', pos: 'succeed' };
    });
    try {
      for (const op of ['E8', 'E9'] as const) {
        const r = envelopeOf(await call(enabled, op, { headers: AUTH }));
        expect(r).toMatchObject({ ResultCode: 200, IsValid: true });
        expect(r.ResultData).toContain('ya se encuentra habilitada');
      }
    } finally {
      await enabled.close();
    }
  });

  test('E8 enables once and then reports already enabled', async () => {
    expect(
      envelopeOf(await call(emu, 'E8', { headers: AUTH, query: { 'test-id': 'set-1' } }))
        .ResultData,
    ).toContain('set-1');
    expect(envelopeOf(await call(emu, 'E8', { headers: AUTH })).ResultData).toContain(
      'ya se encuentra habilitada',
    );
  });
});

describe('E10 list ranges', () => {
  test('E10 lists the active ranges of the company in the list format', async () => {
    const r = envelopeOf(await call(emu, 'E10', { headers: AUTH, query: { nit: '900123456' } }));
    const ranges = r.ResultData as Json[];
    expect(ranges.map((x) => x.Prefix)).toEqual(['SETP', 'NC', 'ND', 'DS', 'NAS', 'POS']);
    expect(ranges[0]).toEqual({
      FromNumber: '990000000',
      ToNumber: '995000000',
      Prefix: 'SETP',
      ResolutionNumber: '18760000001',
      ResolutionDate: '2019-01-19',
      ResolutionType: '18',
      TechnicalKey: 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c',
      ValidDateFrom: '2019-01-19',
      ValidDateTo: '2030-01-19',
    });
  });

  test('E10 answers 400 without nit, 403 when nit does not match or the key is invalid, 404 for an unknown company', async () => {
    expect((await call(emu, 'E10', { headers: AUTH })).status).toBe(400);
    expect((await call(emu, 'E10', { headers: AUTH, query: { nit: '900123457' } })).status).toBe(
      403,
    );
    expect((await call(emu, 'E10', { headers: BAD_KEY, query: { nit: '900123456' } })).status).toBe(
      403,
    );
    expect(
      (
        await call(emu, 'E10', {
          headers: { ...AUTH, 'x-company-id': '77' },
          query: { nit: '900123456' },
        })
      ).status,
    ).toBe(404);
  });

  test('E10 does not list inactive ranges', async () => {
    const one = await emulator((seed) => {
      for (const r of seed.companies[0].ranges as Json[]) r.Active = r.Prefix === 'DS';
    });
    try {
      const r = envelopeOf(await call(one, 'E10', { headers: AUTH, query: { nit: '900123456' } }));
      expect((r.ResultData as Json[]).map((x) => x.Prefix)).toEqual(['DS']);
    } finally {
      await one.close();
    }
  });
});

describe('E11 create range', () => {
  test('E11 registers a range answered in the create format, listed by E10 and usable by E1', async () => {
    const created = envelopeOf(
      await call(emu, 'E11', {
        headers: AUTH,
        body: newRange({ Nit: '900123456', EfectiveValue: 5 }),
      }),
    );
    expect(created.ResultData).toEqual([
      {
        FromNumber: '1',
        ToNumber: '1000',
        Prefix: 'FV',
        ResolutionNumber: '18764000009',
        ResolutionDate: null,
        ResolutionType: 'Invoice',
        TechnicalKey: null,
        ValidDateFrom: '2026-01-01T00:00:00',
        ValidDateTo: '2027-01-01T00:00:00',
      },
    ]);
    const list = envelopeOf(await call(emu, 'E10', { headers: AUTH, query: { nit: '900123456' } }));
    expect((list.ResultData as Json[]).map((x) => x.Prefix)).toContain('FV');
    const issued = envelopeOf(
      await call(emu, 'E1', {
        headers: AUTH,
        body: { ...fixture('invoice.json'), SeriePrefix: 'FV', SerieNumber: undefined },
      }),
    );
    expect(issued.IsValid).toBe(true);
    expect(issued.Warning[0]).toContain('FV5');
  });

  test('E11 accumulates every failed validation in Errors', async () => {
    await call(emu, 'E11', { headers: AUTH, body: newRange() });
    const r = envelopeOf(
      await call(emu, 'E11', {
        headers: AUTH,
        body: newRange({
          StartValue: 10,
          EndValue: 1,
          ValidFrom: '2027-06-01T00:00:00',
          Nit: '800197268',
        }),
      }),
    );
    expect(r).toMatchObject({ ResultCode: 400, IsValid: false });
    expect(r.Errors).toHaveLength(4);
    expect(r.Errors.join('\n')).toMatch(/StartValue[\s\S]*ValidFrom[\s\S]*Nit[\s\S]*Ya existe/);
  });

  test('E11 reports missing fields and bad date formats together, and an unknown company', async () => {
    const r = envelopeOf(
      await call(emu, 'E11', {
        headers: AUTH,
        body: { Prefix: 'X', ValidFrom: '2026-01-01', ValidTo: '2026-02-01T00:00:00' },
      }),
    );
    expect(r.Errors.length).toBeGreaterThanOrEqual(5);
    expect(r.Errors.some((e) => e.startsWith('ValidFrom'))).toBe(true);
    expect(r.Errors.some((e) => e.startsWith('AuthorizationNumber'))).toBe(true);
    const unknown = await call(emu, 'E11', {
      headers: { 'x-api-key': 'k', 'x-company-id': '5' },
      body: newRange(),
    });
    expect(unknown.status).toBe(400);
    expect(envelopeOf(unknown).Errors).toEqual(['La empresa 5 no existe.']);
  });
});

describe('E12 received documents', () => {
  const page = async (query: Record<string, string>) =>
    envelopeOf(await call(emu, 'E12', { headers: AUTH, query })).ResultData as {
      data: Json[];
      page: number;
      per_page: number;
      total: number;
      total_pages: number;
    };

  test('E12 lists newest first, includes the whole end day, with page 1 and per_page 20 by default', async () => {
    const all = await page({ start_date: '2026-01-01', end_date: '2026-12-31' });
    expect(all).toMatchObject({ page: 1, per_page: 20, total: 30, total_pages: 2 });
    const dates = all.data.map((d) => Date.parse(d.documentDate as string));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    const lastDay = await page({ start_date: '2026-11-09', end_date: '2026-11-09' });
    expect(lastDay.total).toBe(1);
    expect(lastDay.data[0].documentDate).toBe('Mon, 09 Nov 2026 00:00:00 GMT');
    const second = await page({ start_date: '2026-01-01', end_date: '2026-12-31', page: '2' });
    expect(second.data).toHaveLength(10);
  });

  test('E12 answers an empty page with total 0 and total_pages 0', async () => {
    expect(await page({ start_date: '2025-01-01', end_date: '2025-01-31' })).toEqual({
      data: [],
      page: 1,
      per_page: 20,
      total: 0,
      total_pages: 0,
    });
  });

  test('E12 serves documents added through /_emulator/received', async () => {
    const doc = {
      ...(await page({ start_date: '2026-11-09', end_date: '2026-11-09' })).data[0],
      cufe: 'new',
      documentNumber: 'FE9',
      documentDate: 'Sat, 21 Nov 2026 00:00:00 GMT',
    };
    const res = await fetch(`${emu.url}/_emulator/received`, {
      method: 'POST',
      body: JSON.stringify({ company: 1001, documents: [doc] }),
    });
    expect(res.status).toBe(200);
    const r = await page({ start_date: '2026-11-21', end_date: '2026-11-21' });
    expect(r.data.map((d) => d.documentNumber)).toEqual(['FE9']);
  });

  test('E12 answers 401 with ResultData null for a wrong key', async () => {
    const r = await call(emu, 'E12', {
      headers: BAD_KEY,
      query: { start_date: '2026-11-01', end_date: '2026-11-30' },
    });
    expect(r.status).toBe(401);
    expect(envelopeOf(r).ResultData).toBeNull();
  });
});
