/** The named business rules of E1, E2, E3 and E4, and the authority's verdicts, over real HTTP. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { AUTH, call, documents, emulator, envelopeOf, fixture, posForm } from './helpers.js';

type Json = Record<string, unknown>;
let emu: RunningEmulator;
beforeEach(async () => {
  emu = await emulator();
});
afterEach(async () => {
  await emu.close();
});

const invoice = (patch: Json = {}): Json => ({ ...fixture('invoice.json'), ...patch });
const ref = {
  DocumentReferences: [{ DocumentReferred: 'SETP990000001', IssueDate: '2026-11-20', Type: '01' }],
};

describe('E1 type inference and numbering', () => {
  test('E1 issues a credit note when ReasonCredit has a value', async () => {
    const r = await call(emu, 'E1', {
      headers: AUTH,
      body: invoice({ ReasonCredit: 'Devolución', SeriePrefix: 'NC', SerieNumber: '1', ...ref }),
    });
    expect(envelopeOf(r)).toMatchObject({
      IsValid: true,
      ResultCode: 200,
      ResultData: 'Procesado Correctamente.',
    });
    expect((await documents(emu))[0]).toMatchObject({
      kind: 'credit-note',
      prefix: 'NC',
      number: '1',
      accepted: true,
    });
  });

  test('E1 issues a debit note when ReasonCredit is empty and ReasonDebit has a value', async () => {
    await call(emu, 'E1', {
      headers: AUTH,
      body: invoice({
        ReasonCredit: ' ',
        ReasonDebit: 'Intereses',
        SeriePrefix: 'ND',
        SerieNumber: '1',
        ...ref,
      }),
    });
    expect((await documents(emu))[0]).toMatchObject({ kind: 'debit-note', accepted: true });
  });

  test('E1 prefers ReasonCredit when both reasons have a value', async () => {
    await call(emu, 'E1', {
      headers: AUTH,
      body: invoice({
        ReasonCredit: 'a',
        ReasonDebit: 'b',
        SeriePrefix: 'NC',
        SerieNumber: '2',
        ...ref,
      }),
    });
    expect((await documents(emu))[0]).toMatchObject({ kind: 'credit-note' });
  });

  test('E1 assigns the next consecutive of the current range with a Warning when SerieNumber is omitted', async () => {
    const first = envelopeOf(
      await call(emu, 'E1', { headers: AUTH, body: invoice({ SerieNumber: undefined }) }),
    );
    const second = envelopeOf(
      await call(emu, 'E1', {
        headers: AUTH,
        body: invoice({ SerieNumber: undefined, SeriePrefix: undefined }),
      }),
    );
    expect(first.IsValid).toBe(true);
    expect(first.Warning[0]).toContain('SETP990000000');
    expect(first.Warning[0]).toContain('2030-01-19');
    expect(second.Warning[0]).toContain('SETP990000001');
    expect((await documents(emu)).map((d) => d.number)).toEqual(['990000000', '990000001']);
  });
});

describe('E1 authority verdicts', () => {
  test('E1 rejects a number already accepted with exactly rule 90', async () => {
    await call(emu, 'E1', { headers: AUTH, body: invoice() });
    const again = envelopeOf(await call(emu, 'E1', { headers: AUTH, body: invoice() }));
    expect(again).toMatchObject({
      IsValid: false,
      ResultCode: 200,
      Errors: ['Regla: 90, Rechazo: Documento procesado anteriormente.'],
    });
  });

  test('E1 does not treat a previously rejected number as a duplicate', async () => {
    const bad = invoice({
      IssuerParty: {
        Identification: { DocumentNumber: '900123456', DocumentType: '31', CheckDigit: '7' },
      },
    });
    expect(envelopeOf(await call(emu, 'E1', { headers: AUTH, body: bad })).IsValid).toBe(false);
    expect(envelopeOf(await call(emu, 'E1', { headers: AUTH, body: invoice() })).IsValid).toBe(
      true,
    );
  });

  test('E1 rejects a number outside every active range of its prefix', async () => {
    const r = envelopeOf(
      await call(emu, 'E1', { headers: AUTH, body: invoice({ SerieNumber: '995000001' }) }),
    );
    expect(r.IsValid).toBe(false);
    expect(r.Errors[0]).toMatch(/^Regla: FAD05, Rechazo: /);
  });

  test('E1 rejects a number of a range that is not active', async () => {
    const inactive = await emulator((seed) => {
      (seed.companies[0].ranges as Json[])[0].Active = false;
    });
    try {
      const r = envelopeOf(await call(inactive, 'E1', { headers: AUTH, body: invoice() }));
      expect(r.Errors.some((e) => e.startsWith('Regla: FAD05'))).toBe(true);
    } finally {
      await inactive.close();
    }
  });

  test('E1 rejects totals that do not add up to the cent', async () => {
    const body = invoice();
    (body.Total as Json).PayableAmount = '119000.01';
    const r = envelopeOf(await call(emu, 'E1', { headers: AUTH, body }));
    expect(r.IsValid).toBe(false);
    expect(r.Errors.some((e) => e.startsWith('Regla: FAU04, Rechazo: Total.PayableAmount'))).toBe(
      true,
    );
  });

  test('E1 rejects a tax amount that is not base × rate', async () => {
    const body = invoice();
    (body.TaxSubTotals as Json[])[0].TaxAmount = '19001.00';
    const r = envelopeOf(await call(emu, 'E1', { headers: AUTH, body }));
    expect(r.Errors.some((e) => e.startsWith('Regla: FAU04'))).toBe(true);
  });

  test('E1 rejects a credit note without a reference', async () => {
    const r = envelopeOf(
      await call(emu, 'E1', {
        headers: AUTH,
        body: invoice({ ReasonCredit: 'x', SeriePrefix: 'NC', SerieNumber: '3' }),
      }),
    );
    expect(r).toMatchObject({
      IsValid: false,
      Errors: ['Regla: DRF01, Rechazo: La nota no referencia el documento que corrige.'],
    });
  });

  test('E1 rejects a debit note without a reference', async () => {
    const res = await call(emu, 'E1', {
      headers: AUTH,
      body: invoice({ ReasonDebit: 'Intereses', SeriePrefix: 'ND', SerieNumber: '3' }),
    });
    expect(res.status).toBe(200);
    expect(envelopeOf(res)).toMatchObject({
      ResultCode: 200,
      IsValid: false,
      ResultData: 'Documento rechazado por la autoridad.',
      Errors: ['Regla: DRF01, Rechazo: La nota no referencia el documento que corrige.'],
    });
    expect((await documents(emu))[0]).toMatchObject({
      kind: 'debit-note',
      prefix: 'ND',
      number: '3',
      accepted: false,
    });
  });

  test('E1 rejects a check digit that does not match the NIT', async () => {
    const body = invoice({
      CustomerParty: {
        Name: 'X',
        Identification: { DocumentNumber: '800197268', DocumentType: '31', CheckDigit: '5' },
      },
    });
    const r = envelopeOf(await call(emu, 'E1', { headers: AUTH, body }));
    expect(r.IsValid).toBe(false);
    expect(r.Errors[0]).toMatch(
      /^Regla: FAJ24, Rechazo: CustomerParty\.Identification\.CheckDigit/,
    );
  });

  test('E1 401 names the company id and is HTTP 200', async () => {
    const r = await call(emu, 'E1', {
      headers: { 'x-api-key': 'nope', 'x-company-id': '1001' },
      body: invoice(),
    });
    expect(r.status).toBe(200);
    expect(envelopeOf(r).ResultData).toContain('1001');
  });
});

describe('E2 payroll', () => {
  const headers = { ...AUTH, 'x-user-id': '7' };
  test('E2 records an adjustment note (TipoNota 1) and assigns the consecutive when omitted', async () => {
    const body = {
      ...fixture('payroll.json'),
      TipoNota: '1',
      NumeroSecuenciaXML: { Prefijo: 'NOM' },
    };
    const r = envelopeOf(await call(emu, 'E2', { headers, body }));
    expect(r.IsValid).toBe(true);
    expect(r.Warning[0]).toContain('NOM1');
    expect((await documents(emu))[0]).toMatchObject({
      kind: 'payroll-adjustment',
      prefix: 'NOM',
      number: '1',
    });
  });

  test('E2 accepts a period that ends before it starts: the spec shows no rule on the period', async () => {
    const body = fixture('payroll.json');
    body.Periodo = {
      ...(body.Periodo as Json),
      FechaLiquidacionInicio: '2026-11-01',
      FechaLiquidacionFin: '2026-10-01',
    };
    const r = envelopeOf(await call(emu, 'E2', { headers, body }));
    expect(r).toMatchObject({ IsValid: true, ResultCode: 200 });
  });

  test('E2 answers 400 for a user that is not of the company and 400 for an invalid body', async () => {
    expect(
      (
        await call(emu, 'E2', {
          headers: { ...headers, 'x-user-id': '8' },
          body: fixture('payroll.json'),
        })
      ).status,
    ).toBe(400);
    const r = await call(emu, 'E2', { headers, body: { Unknown: 1 } });
    expect(r.status).toBe(400);
    expect(envelopeOf(r).ResultCode).toBe(400);
    expect((await call(emu, 'E2', { headers, body: '' })).status).toBe(400);
  });
});

describe('E3 and E4 POS', () => {
  test('E3 nota-ajuste is the alias of nota-ajuste-credito', async () => {
    const content = fixture('pos-content.json');
    (content.documento as Json).documentosAfectados = [
      { numeroDocumento: 'POS1', UUID: 'abc', fechaEmision: '2026-11-20', codigoCausal: '1' },
    ];
    const r = await call(emu, 'E3', {
      tipo: 'nota-ajuste',
      form: posForm({ companyId: '1001', prefijo: 'POS', numeroDocumento: '10' }, content),
    });
    expect((r.body as Json).authorityStatus).toBe('true');
    expect((await documents(emu))[0]).toMatchObject({ kind: 'pos-credit-note', number: '10' });
  });

  test('E3 without numeroDocumento takes the next consecutive of the current range and says so in notificaciones', async () => {
    const numbered = await emulator((seed) => {
      const pos = (seed.companies[0].ranges as Json[]).find(
        (r) => r.DocumentType === 'Pos',
      ) as Json;
      pos.Next = 41;
    });
    try {
      const notice = (n: number) =>
        `Se usó la numeración por defecto POS (resolución 18760000006), vigente hasta 2030-01-19; número asignado POS${n}.`;
      const first = await call(numbered, 'E3', {
        form: posForm({ companyId: '1001', prefijo: 'POS' }),
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        authorityStatus: 'true',
        estado: 1,
        prefijo: 'POS',
        numeroDocumento: '41',
        erroresAuthority: [],
        notificaciones: [notice(41)],
      });
      const second = await call(numbered, 'E3', {
        form: posForm({ companyId: '1001', prefijo: 'POS' }),
      });
      expect(second.body).toMatchObject({
        authorityStatus: 'true',
        numeroDocumento: '42',
        notificaciones: [notice(42)],
      });
      expect(
        (await documents(numbered)).map((d) => `${d.prefix as string}${d.number as string}`),
      ).toEqual(['POS41', 'POS42']);
    } finally {
      await numbered.close();
    }
  });

  test('E3 with numeroDocumento carries no numbering notice', async () => {
    const r = await call(emu, 'E3', {
      form: posForm({ companyId: '1001', prefijo: 'POS', numeroDocumento: '7' }),
    });
    expect(r.body).toMatchObject({
      authorityStatus: 'true',
      numeroDocumento: '7',
      notificaciones: [],
    });
  });

  test('E3 rejects an adjustment note without affected documents', async () => {
    const r = await call(emu, 'E3', {
      tipo: 'nota-ajuste-debito',
      form: posForm({ companyId: '1001', prefijo: 'POS', numeroDocumento: '11' }),
    });
    expect(r.body).toMatchObject({
      authorityStatus: 'false',
      erroresAuthority: ['Regla: DRF01, Rechazo: La nota no referencia el documento que corrige.'],
    });
  });

  test('E3 answers the 400 record for an unknown tipo and for a file that is not JSON', async () => {
    const r = await call(emu, 'E3', {
      tipo: 'factura',
      form: posForm({ companyId: '1001', prefijo: 'POS' }),
    });
    expect(r.status).toBe(400);
    expect((r.body as Json).details).toEqual([expect.stringMatching(/^tipo: /)]);
    const form = posForm({ companyId: '1001', prefijo: 'POS' });
    form.set('file', new Blob(['not json']), 'x.json');
    const bad = await call(emu, 'E3', { form });
    expect(bad.status).toBe(400);
    expect((bad.body as Json).details).toEqual(['file: no contiene JSON válido']);
  });

  test('E3 records enviarCorreo only for an accepted document', async () => {
    await call(emu, 'E3', {
      form: posForm({ companyId: '1001', prefijo: 'POS', enviarCorreo: 'true' }),
    });
    expect((await documents(emu))[0]).toMatchObject({ accepted: true, emailed: true });
  });

  test('E4 issues from jsonOriginal with the key of the company, and refuses another key', async () => {
    const body = {
      companyId: 1001,
      prefijo: 'POS',
      tipoFactura: 'pos',
      enviarCorreo: false,
      numero: 20,
      jsonOriginal: JSON.stringify(fixture('pos-content.json')),
    };
    const ok = await call(emu, 'E4', { headers: { 'x-api-key': 'demo-key-1001' }, body });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      authorityStatus: 'true',
      prefijo: 'POS',
      numeroDocumento: '20',
    });
    const refused = await call(emu, 'E4', { headers: { 'x-api-key': 'other' }, body });
    expect(refused.status).toBe(401);
    expect((refused.body as Json).message).toContain('1001');
  });
});
