/** Support document (E5) and adjustment note (E6) rules, over real HTTP. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { colombiaDateTime } from '../../src/policy/dates.js';
import { AUTH, BAD_KEY, call, documents, emulator, envelopeOf, fixture } from './helpers.js';

type Json = Record<string, unknown>;
let emu: RunningEmulator;
beforeEach(async () => {
  emu = await emulator();
});
afterEach(async () => {
  await emu.close();
});

const support = (patch: Json = {}): Json => ({ ...fixture('support-document.json'), ...patch });
const line = (body: Json, i = 0): Json => (body.Lines as Json[])[i];
const e5 = async (body: Json) => envelopeOf(await call(emu, 'E5', { headers: AUTH, body }));
const e6 = async (body: Json) => envelopeOf(await call(emu, 'E6', { headers: AUTH, body }));
/** The request bodies the emulator recorded, in issue order (with what it completed or replaced). */
const recorded = async (on: RunningEmulator, kind: string): Promise<Json[]> => {
  const res = await fetch(`${on.url}/_emulator/documents?withRequest=true&kind=${kind}`);
  return ((await res.json()) as { documents: Array<{ request: Json }> }).documents.map(
    (d) => d.request,
  );
};
const COMPANY_PARTY = {
  Name: 'Demo Comercial SAS',
  Identification: {
    DocumentNumber: '900123456',
    DocumentType: '31',
    CountryCode: 'CO',
    CheckDigit: '8',
  },
};

describe('E5 support document', () => {
  test('E5 uses the current resolution and warns with its expiry date when the number is omitted', async () => {
    const r = await e5(support({ SeriePrefix: undefined, SerieNumber: undefined }));
    expect(r.IsValid).toBe(true);
    expect(r.Warning).toEqual([expect.stringContaining('DS1')]);
    expect(r.Warning[0]).toContain('2030-01-19');
  });

  test('E5 answers 400 in HTTP 200 when VAT is sent as a withholding (rule 2)', async () => {
    const body = support();
    line(body).WithholdingTaxSubTotals = [{ TaxCategory: '01', TaxPercentage: '19.00' }];
    const res = await call(emu, 'E5', { headers: AUTH, body });
    expect(res.status).toBe(200);
    const r = envelopeOf(res);
    expect(r).toMatchObject({ ResultCode: 400, IsValid: false });
    expect(r.Errors[0]).toContain('WithholdingTaxSubTotals');
    expect(r.ResultData).toBe(r.Errors.join(' '));
  });

  test('E5 answers 400 when a withholding 05 is sent in TaxSubTotals (rule 2)', async () => {
    const body = support();
    (line(body).TaxSubTotals as Json[]).push({
      TaxCategory: '05',
      TaxPercentage: '15.00',
      TaxableAmount: '19000.00',
      TaxAmount: '2850.00',
    });
    expect((await e5(body)).ResultCode).toBe(400);
  });

  test('E5 answers 400 for a line with two VAT rates (rule 3)', async () => {
    const body = support();
    (line(body).TaxSubTotals as Json[]).push({
      TaxCategory: '01',
      TaxPercentage: '5.00',
      TaxableAmount: '100000.00',
      TaxAmount: '5000.00',
    });
    const r = await e5(body);
    expect(r.ResultCode).toBe(400);
    expect(r.Errors.join(' ')).toMatch(/one VAT rate/);
  });

  test('E5 accepts taxed, exempt and excluded lines; only the exempt one counts in the base (rule 4)', async () => {
    const body = support({
      Lines: [
        line(support()),
        {
          Number: '2',
          Quantity: '1',
          UnitPrice: '50000.00',
          NetAmount: '50000.00',
          Item: { Description: 'Exento' },
          TaxSubTotals: [
            {
              TaxCategory: '01',
              TaxPercentage: '0.00',
              TaxableAmount: '50000.00',
              TaxAmount: '0.00',
            },
          ],
        },
        {
          Number: '3',
          Quantity: '1',
          UnitPrice: '20000.00',
          NetAmount: '20000.00',
          Item: { Description: 'Excluido' },
        },
      ],
      Total: {
        TaxableAmount: '150000.00',
        TaxAmount: '19000.00',
        PayableAmount: '189000.00',
        WithholdingTaxAmount: '5350.00',
      },
    });
    const r = await e5(body);
    expect(r.Errors).toEqual([]);
    expect(r.IsValid).toBe(true);
  });

  test('E5 answers 400 when the withholdings are subtracted from PayableAmount (rule 5)', async () => {
    const body = support();
    (body.Total as Json).PayableAmount = '113650.00';
    const r = await e5(body);
    expect(r.ResultCode).toBe(400);
    expect(r.Errors.join(' ')).toContain('PayableAmount');
  });

  test('E5 answers 400 with a per-line message for a PeriodStartDate 7 days back, and accepts 6 (rule 7)', async () => {
    const body = support({
      Lines: [line(support()), { ...line(support()), Number: '2', PeriodStartDate: '2026-11-15' }],
      Total: {
        TaxableAmount: '200000.00',
        TaxAmount: '38000.00',
        PayableAmount: '238000.00',
        WithholdingTaxAmount: '10700.00',
      },
      TaxTotals: [{ TaxCategory: '01', TaxAmount: '38000.00' }],
    });
    const r = await e5(body);
    expect(r.ResultCode).toBe(400);
    expect(r.Errors).toEqual([
      expect.stringMatching(
        /^Lines\[1\]\.PeriodStartDate: Line 2: PeriodStartDate 2026-11-15 is 7 days before 2026-11-22/,
      ),
    ]);
    line(body, 1).PeriodStartDate = '2026-11-16';
    expect((await e5(body)).IsValid).toBe(true);
  });

  test('E5 answers 400 when WithholdingTaxAmount is not the sum of the 05 and 06 withholdings (rule 6)', async () => {
    const body = support();
    (body.Total as Json).WithholdingTaxAmount = '5000.00';
    const res = await call(emu, 'E5', { headers: AUTH, body });
    expect(res.status).toBe(200);
    const message =
      'Total.WithholdingTaxAmount: 5000.00 should be 5350.00 (sum of the withholdings: 05 on the VAT, 06 on the taxable amount)';
    expect(envelopeOf(res)).toEqual({
      ResultCode: 400,
      IsValid: false,
      ResultData: message,
      Errors: [message],
      Warning: [],
    });
    expect(await documents(emu)).toEqual([]);
  });

  test('E5 accepts WithholdingTaxAmount equal to 05 at 15.00 on the VAT plus 06 at 2.50 on the taxable amount (rule 6)', async () => {
    // 15 % of 19000.00 = 2850.00; 2.5 % of 100000.00 = 2500.00; 5350.00 in the fixture.
    expect(await e5(support())).toEqual({
      ResultCode: 200,
      IsValid: true,
      ResultData: 'Procesado Correctamente.',
      Errors: [],
      Warning: [],
    });
  });

  test('E5 answers 400 when the totals do not add up', async () => {
    const body = support();
    (body.Total as Json).TaxAmount = '19000.01';
    expect((await e5(body)).ResultCode).toBe(400);
  });

  test('E5 answers 400 in HTTP 200 for a number outside every current range of its prefix (numbering), and issues nothing', async () => {
    const res = await call(emu, 'E5', { headers: AUTH, body: support({ SerieNumber: '5000000' }) });
    expect(res.status).toBe(200);
    const message =
      'El número DS5000000 no está dentro de un rango de numeración vigente de documento soporte con prefijo DS para la empresa 1001.';
    expect(envelopeOf(res)).toEqual({
      ResultCode: 400,
      IsValid: false,
      ResultData: message,
      Errors: [message],
      Warning: [],
    });
    expect(await documents(emu)).toEqual([]);
  });

  test('E5 answers 400 in HTTP 200 for a prefix without a support-document range, sent number or not', async () => {
    const message =
      'No hay una resolución de documento soporte vigente con prefijo SETP para la empresa 1001.';
    for (const body of [
      support({ SeriePrefix: 'SETP', SerieNumber: '990000001' }),
      support({ SeriePrefix: 'SETP', SerieNumber: undefined }),
    ]) {
      const res = await call(emu, 'E5', { headers: AUTH, body });
      expect(res.status).toBe(200);
      expect(envelopeOf(res)).toEqual({
        ResultCode: 400,
        IsValid: false,
        ResultData: message,
        Errors: [message],
        Warning: [],
      });
    }
    expect(await documents(emu)).toEqual([]);
  });

  test('E5 answers 400 for a number of a range that is not active', async () => {
    const inactive = await emulator((seed) => {
      for (const r of seed.companies[0].ranges as Json[]) if (r.Prefix === 'DS') r.Active = false;
    });
    try {
      const r = envelopeOf(await call(inactive, 'E5', { headers: AUTH, body: support() }));
      expect(r).toMatchObject({
        ResultCode: 400,
        IsValid: false,
        Errors: [
          'No hay una resolución de documento soporte vigente con prefijo DS para la empresa 1001.',
        ],
      });
    } finally {
      await inactive.close();
    }
  });

  test('E5 rejected by the authority (a NIT check digit that does not match) answers Procesado con errores.', async () => {
    const body = support();
    (body.SupplierParty as Json).Identification = {
      DocumentNumber: '830045123',
      DocumentType: '31',
      CountryCode: 'CO',
      CheckDigit: '9',
    };
    const r = await e5(body);
    expect(r).toMatchObject({
      ResultCode: 200,
      IsValid: false,
      ResultData: 'Procesado con errores.',
    });
    expect(r.Errors).toEqual([
      expect.stringMatching(/^Regla: FAJ24, Rechazo: SupplierParty\.Identification\.CheckDigit: /),
    ]);
  });

  test('E5 rejects a repeated number with Procesado con errores.', async () => {
    await e5(support());
    expect(await e5(support())).toMatchObject({
      ResultCode: 200,
      IsValid: false,
      ResultData: 'Procesado con errores.',
      Errors: ['Regla: 90, Rechazo: Documento procesado anteriormente.'],
    });
  });

  test('E5 401 repeats the message naming the company id', async () => {
    const r = envelopeOf(await call(emu, 'E5', { headers: BAD_KEY, body: support() }));
    expect(r).toMatchObject({ ResultCode: 401, IsValid: false });
    expect(r.ResultData).toContain('1001');
    expect(r.Errors).toEqual([r.ResultData]);
  });

  test('E5 completes a party that was not sent from the registered provider (rule 1)', async () => {
    await e5(support());
    const partial = support({
      SerieNumber: '2',
      SupplierParty: { Identification: { DocumentNumber: '1020304050', DocumentType: '13' } },
    });
    expect((await e5(partial)).IsValid).toBe(true);
    const res = await fetch(`${emu.url}/_emulator/documents?withRequest=true`);
    const docs = ((await res.json()) as { documents: Array<{ request: { SupplierParty: Json } }> })
      .documents;
    expect(docs[1].request.SupplierParty.Name).toBe('Proveedor Persona Natural');
  });

  test('E5 completes a partly sent party field by field from the registered provider, nested objects included (rule 1)', async () => {
    await e5(support());
    const registered = support().SupplierParty as Json;
    const partial = support({
      SerieNumber: '2',
      SupplierParty: {
        Identification: { DocumentNumber: '1020304050' },
        Email: '',
        Address: { AddressLine: 'Carrera 9 # 8-7' },
      },
    });
    expect((await e5(partial)).IsValid).toBe(true);
    expect((await recorded(emu, 'support-document'))[1].SupplierParty).toEqual({
      ...registered,
      Address: { ...(registered.Address as Json), AddressLine: 'Carrera 9 # 8-7' },
    });
  });

  test('E5 completes what neither the party nor a registered provider has from the issuing company (rule 1)', async () => {
    const party = {
      Identification: { DocumentNumber: '79000111', DocumentType: '13', CountryCode: 'CO' },
      Email: 'otro@correo.example',
    };
    expect((await e5(support({ SupplierParty: party }))).IsValid).toBe(true);
    // The sent Identification names the party: it is not completed with the company's check digit.
    expect((await recorded(emu, 'support-document'))[0].SupplierParty).toEqual({
      ...party,
      Name: 'Demo Comercial SAS',
    });
  });

  test('E5 takes the issuing company as the party when none is sent (rule 1)', async () => {
    expect((await e5(support({ SupplierParty: undefined }))).IsValid).toBe(true);
    expect((await recorded(emu, 'support-document'))[0].SupplierParty).toEqual(COMPANY_PARTY);
  });

  test('E5 reads CustomerParty as the party and completes it the same way (rule 1)', async () => {
    await e5(support());
    const body = support({
      SerieNumber: '2',
      SupplierParty: undefined,
      CustomerParty: { Identification: { DocumentNumber: '1020304050' } },
    });
    expect((await e5(body)).IsValid).toBe(true);
    expect((await recorded(emu, 'support-document'))[1].SupplierParty).toEqual(
      support().SupplierParty,
    );
  });
});

describe('E6 adjustment note', () => {
  beforeEach(async () => {
    expect((await e5(support())).IsValid).toBe(true);
  });

  test('E6 without Lines annuls the referenced document with its same detail and warns that no lines were informed', async () => {
    const r = await e6({ DocumentReferences: [{ DocumentReferred: 'DS1' }] });
    expect(r.IsValid).toBe(true);
    expect(r.Warning[0]).toMatch(/^No se informaron líneas; se anula el documento DS1/);
    const res = await fetch(
      `${emu.url}/_emulator/documents?withRequest=true&kind=support-adjustment`,
    );
    const [note] = ((await res.json()) as { documents: Array<Json & { request: Json }> }).documents;
    expect(note).toMatchObject({ prefix: 'NAS', number: '1' });
    expect(note.request.Lines).toEqual(support().Lines);
    expect(note.request).toMatchObject({
      CorrectionConceptCode: '2',
      CorrectionConcept: 'Se anula documento',
      Currency: 'COP',
    });
  });

  test('E6 finds the reference by CUFE', async () => {
    const [doc] = await documents(emu);
    expect(
      (await e6({ DocumentReferences: [{ DocumentReferredCUFE: doc.cufe as string }] })).IsValid,
    ).toBe(true);
  });

  test('E6 answers 400 for an unknown reference, a rejected one, and a missing identifier', async () => {
    expect((await e6({ DocumentReferences: [{ DocumentReferred: 'DS99' }] })).Errors[0]).toContain(
      'no existe',
    );
    const badDigit = support({ SerieNumber: '5' });
    (badDigit.SupplierParty as Json).Identification = {
      DocumentNumber: '830045123',
      DocumentType: '31',
      CountryCode: 'CO',
      CheckDigit: '9',
    };
    expect(await e5(badDigit)).toMatchObject({ ResultCode: 200, IsValid: false });
    const rejected = await e6({ DocumentReferences: [{ DocumentReferred: 'DS5' }] });
    expect(rejected).toMatchObject({ ResultCode: 400, IsValid: false });
    expect(rejected.Errors[0]).toContain('no fue aceptado');
    expect((await e6({ DocumentReferences: [{ IssueDate: '2026-11-20' }] })).ResultCode).toBe(400);
  });

  test('E6 admits only COP', async () => {
    const r = await e6({ DocumentReferences: [{ DocumentReferred: 'DS1' }], Currency: 'USD' });
    expect(r.ResultCode).toBe(400);
    expect(r.Errors[0]).toContain('COP');
  });

  test('E6 with Lines requires SupplierParty and Total, and follows the support rules', async () => {
    const partial = { DocumentReferences: [{ DocumentReferred: 'DS1' }], Lines: support().Lines };
    expect((await e6(partial)).ResultCode).toBe(400);
    const full = {
      ...partial,
      SupplierParty: support().SupplierParty,
      Total: support().Total,
      TaxTotals: support().TaxTotals,
    };
    const r = await e6(full);
    expect(r.IsValid).toBe(true);
    expect(r.Warning.join(' ')).not.toContain('No se informaron');
    const old = { ...full, Lines: [{ ...line(support()), PeriodStartDate: '2026-11-01' }] };
    expect((await e6(old)).ResultCode).toBe(400);
  });

  test('E6 rejected by the authority answers Procesado con errores. with the reasons in Errors', async () => {
    expect(
      (
        await e6({
          DocumentReferences: [{ DocumentReferred: 'DS1' }],
          SeriePrefix: 'NAS',
          SerieNumber: '7',
        })
      ).IsValid,
    ).toBe(true);
    const res = await call(emu, 'E6', {
      headers: AUTH,
      body: {
        DocumentReferences: [{ DocumentReferred: 'DS1' }],
        SeriePrefix: 'NAS',
        SerieNumber: '7',
      },
    });
    expect(res.status).toBe(200);
    expect(envelopeOf(res)).toEqual({
      ResultCode: 200,
      IsValid: false,
      ResultData: 'Procesado con errores.',
      Errors: ['Regla: 90, Rechazo: Documento procesado anteriormente.'],
      Warning: [
        'No se informaron líneas; se anula el documento DS1 con su mismo detalle, impuestos y retenciones.',
      ],
    });
    const body = {
      DocumentReferences: [{ DocumentReferred: 'DS1' }],
      Lines: support().Lines,
      Total: support().Total,
      TaxTotals: support().TaxTotals,
      SupplierParty: {
        ...(support().SupplierParty as Json),
        Identification: {
          DocumentNumber: '830045123',
          DocumentType: '31',
          CountryCode: 'CO',
          CheckDigit: '9',
        },
      },
    };
    const digit = await e6(body);
    expect(digit).toMatchObject({
      ResultCode: 200,
      IsValid: false,
      ResultData: 'Procesado con errores.',
    });
    expect(digit.Errors).toEqual([expect.stringMatching(/^Regla: FAJ24, Rechazo: /)]);
  });

  test('E6 answers 400 in HTTP 200 for a number outside every current range of its prefix, or a prefix without a notes range', async () => {
    const outside = await call(emu, 'E6', {
      headers: AUTH,
      body: {
        DocumentReferences: [{ DocumentReferred: 'DS1' }],
        SeriePrefix: 'NAS',
        SerieNumber: '5000000',
      },
    });
    expect(outside.status).toBe(200);
    const message =
      'El número NAS5000000 no está dentro de un rango de numeración vigente de notas de ajuste con prefijo NAS para la empresa 1001.';
    expect(envelopeOf(outside)).toMatchObject({
      ResultCode: 400,
      IsValid: false,
      ResultData: message,
      Errors: [message],
    });
    const noRange = await e6({
      DocumentReferences: [{ DocumentReferred: 'DS1' }],
      SeriePrefix: 'DS',
      SerieNumber: '7',
    });
    const noRangeMessage =
      'No hay una resolución de notas de ajuste vigente con prefijo DS para la empresa 1001.';
    expect(noRange).toMatchObject({
      ResultCode: 400,
      IsValid: false,
      ResultData: noRangeMessage,
      Errors: [noRangeMessage],
    });
    expect(await documents(emu, '?kind=support-adjustment')).toEqual([]);
  });

  test('E6 401 repeats the message naming the company id', async () => {
    const res = await call(emu, 'E6', {
      headers: BAD_KEY,
      body: { DocumentReferences: [{ DocumentReferred: 'DS1' }] },
    });
    expect(res.status).toBe(200);
    const message = 'La llave de acceso no corresponde a la empresa 1001.';
    expect(envelopeOf(res)).toEqual({
      ResultCode: 401,
      IsValid: false,
      ResultData: message,
      Errors: [message],
      Warning: [],
    });
    expect(await documents(emu, '?kind=support-adjustment')).toEqual([]);
  });

  test('E6 with Lines completes a partly sent SupplierParty from the registered provider (rule 1)', async () => {
    const body = {
      DocumentReferences: [{ DocumentReferred: 'DS1' }],
      Lines: support().Lines,
      Total: support().Total,
      TaxTotals: support().TaxTotals,
      SupplierParty: {
        Identification: { DocumentNumber: '1020304050' },
        Name: 'Proveedor Renombrado',
      },
    };
    expect((await e6(body)).IsValid).toBe(true);
    expect((await recorded(emu, 'support-adjustment'))[0].SupplierParty).toEqual({
      ...(support().SupplierParty as Json),
      Name: 'Proveedor Renombrado',
    });
  });

  test("E6 records the note with the seed's pinned today, whatever IssueDate is sent", async () => {
    const pinned = await emulator((seed) => {
      seed.today = '2027-03-01';
    });
    try {
      expect(envelopeOf(await call(pinned, 'E5', { headers: AUTH, body: support() })).IsValid).toBe(
        true,
      );
      const note = {
        DocumentReferences: [{ DocumentReferred: 'DS1' }],
        IssueDate: '2026-11-20T10:00:00',
      };
      expect(envelopeOf(await call(pinned, 'E6', { headers: AUTH, body: note })).IsValid).toBe(
        true,
      );
      expect((await recorded(pinned, 'support-adjustment'))[0].IssueDate).toMatch(
        /^2027-03-01T\d{2}:\d{2}:\d{2}$/,
      );
    } finally {
      await pinned.close();
    }
  });

  test("E6 without a pinned today records Colombia's date and time (UTC−5), not UTC's", async () => {
    const live = await emulator((seed) => {
      seed.today = null;
    });
    try {
      expect(envelopeOf(await call(live, 'E5', { headers: AUTH, body: support() })).IsValid).toBe(
        true,
      );
      const before = colombiaDateTime();
      expect(
        envelopeOf(
          await call(live, 'E6', {
            headers: AUTH,
            body: { DocumentReferences: [{ DocumentReferred: 'DS1' }] },
          }),
        ).IsValid,
      ).toBe(true);
      const after = colombiaDateTime();
      const issueDate = (await recorded(live, 'support-adjustment'))[0].IssueDate as string;
      expect(
        issueDate >= before && issueDate <= after,
        `${issueDate} within [${before}, ${after}]`,
      ).toBe(true);
    } finally {
      await live.close();
    }
  });

  test('E6 numbers notes from its own SupportAdjustmentNote range', async () => {
    await e6({ DocumentReferences: [{ DocumentReferred: 'DS1' }] });
    await e6({ DocumentReferences: [{ DocumentReferred: 'DS1' }] });
    const notes = await documents(emu, '?kind=support-adjustment');
    expect(notes.map((n) => `${n.prefix}${n.number}`)).toEqual(['NAS1', 'NAS2']);
  });
});
