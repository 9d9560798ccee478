/**
 * How to provoke each row of the shared result-code table (test/cases/result-codes.ts)
 * over real HTTP, and what the emulator's answer must then show. The contract
 * test runs every row on the primary paths; the alias test runs the rows of
 * every operation that has an alias path on that alias path.
 */
import { expect } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { pathFor, type PathForm } from '../../src/service/endpoints.js';
import { classify } from '../../src/service/outcome.js';
import { REGLA_90, badDateMessage, type ResultCodeCase } from '../cases/result-codes.js';
import { AUTH, BAD_KEY, call, fixture, posForm, setFaults, type CallResult } from './helpers.js';

type Json = Record<string, unknown>;
export interface Scenario {
  edit?: (seed: Json & { companies: Json[] }) => void;
  /** Provokes the row; the request that answers goes to `form`'s path (the primary one when the operation has no alias). */
  run: (emu: RunningEmulator, form: PathForm) => Promise<CallResult>;
}

const PAYROLL_HEADERS = { ...AUTH, 'x-user-id': '7' };
const invoice = (): Json => fixture('invoice.json');
const support = (): Json => fixture('support-document.json');
const payroll = (): Json => fixture('payroll.json');
const setting =
  (key: 'invoice' | 'payroll' | 'pos', value: string) => (seed: { companies: Json[] }) => {
    (seed.companies[0].commissioning as Json)[key] = value;
  };
const fault = async (emu: RunningEmulator, faults: Json): Promise<void> => setFaults(emu, faults);
const issueSupport = async (emu: RunningEmulator): Promise<void> => {
  expect((await call(emu, 'E5', { headers: AUTH, body: support() })).status).toBe(200);
};
/** A NIT whose CheckDigit does not match: the authority rejects the document (FAJ24) after numbering it. */
const BAD_DIGIT_NIT = {
  DocumentNumber: '830045123',
  DocumentType: '31',
  CountryCode: 'CO',
  CheckDigit: '9',
};
const badDigitSupplier = (): Json => ({
  ...(support().SupplierParty as Json),
  Identification: BAD_DIGIT_NIT,
});
const annul = (number?: string): Json => ({
  DocumentReferences: [{ DocumentReferred: 'DS1' }],
  ...(number === undefined ? {} : { SeriePrefix: 'NAS', SerieNumber: number }),
});
const newRange = (): Json => ({
  Prefix: 'FV',
  AuthorizationNumber: '18764000009',
  ValidFrom: '2026-01-01T00:00:00',
  ValidTo: '2027-01-01T00:00:00',
  StartValue: 1,
  EndValue: 1000,
  DocumentType: 'Invoice',
  Nit: '900123456',
});
const received =
  (query: Record<string, string>, headers: Record<string, string> = AUTH) =>
  (emu: RunningEmulator, pathForm: PathForm) =>
    call(emu, 'E12', { headers, query, pathForm });

export const SCENARIOS: Record<string, Scenario> = {
  'E1-200-http200-valid': { run: (emu) => call(emu, 'E1', { headers: AUTH, body: invoice() }) },
  'E1-200-http200-invalid': {
    run: (emu) => call(emu, 'E1', { headers: AUTH, body: { ...invoice(), SerieNumber: '1' } }),
  },
  'E1-401-http200': { run: (emu) => call(emu, 'E1', { headers: BAD_KEY, body: invoice() }) },
  'E1-500-http200': {
    run: (emu) => call(emu, 'E1', { headers: AUTH, body: { ...invoice(), SeriePrefx: 'SETP' } }),
  },
  'E1-500-http500': {
    run: async (emu) => {
      await fault(emu, { errorRate: 1 });
      return call(emu, 'E1', { headers: AUTH, body: invoice() });
    },
  },
  'E1-429-retry-after': {
    run: async (emu) => {
      await fault(emu, { rateLimitPerSecond: 1 });
      await call(emu, 'E1', { headers: AUTH, body: invoice() });
      return call(emu, 'E1', { headers: AUTH, body: { ...invoice(), SerieNumber: '990000002' } });
    },
  },
  'E1-200-http200-regla90': {
    run: async (emu) => {
      await call(emu, 'E1', { headers: AUTH, body: invoice() });
      return call(emu, 'E1', { headers: AUTH, body: invoice() });
    },
  },
  'E2-200-http200': {
    run: (emu, pathForm) =>
      call(emu, 'E2', { pathForm, headers: PAYROLL_HEADERS, body: payroll() }),
  },
  'E2-422-http200': {
    run: (emu, pathForm) =>
      call(emu, 'E2', {
        pathForm,
        headers: PAYROLL_HEADERS,
        body: { ...payroll(), ComprobanteTotal: '1.00' },
      }),
  },
  'E2-422-http200-regla90': {
    run: async (emu, pathForm) => {
      await call(emu, 'E2', { pathForm, headers: PAYROLL_HEADERS, body: payroll() });
      return call(emu, 'E2', { pathForm, headers: PAYROLL_HEADERS, body: payroll() });
    },
  },
  'E2-401-http401': {
    run: (emu, pathForm) =>
      call(emu, 'E2', {
        pathForm,
        headers: { 'x-company-id': '1001', 'x-user-id': '7' },
        body: payroll(),
      }),
  },
  'E2-400-http400': {
    run: (emu, pathForm) => call(emu, 'E2', { pathForm, headers: AUTH, body: payroll() }),
  },
  'E2-502-http502': {
    run: async (emu, pathForm) => {
      await fault(emu, { badGatewayRate: 1 });
      return call(emu, 'E2', { pathForm, headers: PAYROLL_HEADERS, body: payroll() });
    },
  },
  'E2-500-http500': {
    run: async (emu, pathForm) => {
      await fault(emu, { errorRate: 1 });
      return call(emu, 'E2', { pathForm, headers: PAYROLL_HEADERS, body: payroll() });
    },
  },
  'E5-200-http200-valid': { run: (emu) => call(emu, 'E5', { headers: AUTH, body: support() }) },
  'E5-200-http200-invalid': {
    run: (emu) =>
      call(emu, 'E5', { headers: AUTH, body: { ...support(), SupplierParty: badDigitSupplier() } }),
  },
  'E5-200-http200-regla90': {
    run: async (emu) => {
      await issueSupport(emu);
      return call(emu, 'E5', { headers: AUTH, body: support() });
    },
  },
  'E5-400-http200': {
    run: (emu) =>
      call(emu, 'E5', {
        headers: AUTH,
        body: { ...support(), SeriePrefix: 'ZZ', SerieNumber: undefined },
      }),
  },
  'E5-401-http200': { run: (emu) => call(emu, 'E5', { headers: BAD_KEY, body: support() }) },
  'E5-500-http500': {
    run: async (emu) => {
      await fault(emu, { errorRate: 1 });
      return call(emu, 'E5', { headers: AUTH, body: support() });
    },
  },
  'E6-200-http200-valid': {
    run: async (emu) => {
      await issueSupport(emu);
      return call(emu, 'E6', { headers: AUTH, body: annul() });
    },
  },
  'E6-200-http200-invalid': {
    run: async (emu) => {
      await issueSupport(emu);
      const s = support();
      return call(emu, 'E6', {
        headers: AUTH,
        body: {
          ...annul(),
          Lines: s.Lines,
          TaxTotals: s.TaxTotals,
          Total: s.Total,
          SupplierParty: badDigitSupplier(),
        },
      });
    },
  },
  'E6-200-http200-regla90': {
    run: async (emu) => {
      await issueSupport(emu);
      await call(emu, 'E6', { headers: AUTH, body: annul('7') });
      return call(emu, 'E6', { headers: AUTH, body: annul('7') });
    },
  },
  'E5-400-http200-number-outside-range': {
    run: (emu) =>
      call(emu, 'E5', { headers: AUTH, body: { ...support(), SerieNumber: '5000000' } }),
  },
  'E5-400-http200-prefix-without-range': {
    run: (emu) => call(emu, 'E5', { headers: AUTH, body: { ...support(), SeriePrefix: 'SETP' } }),
  },
  'E6-400-http200-number-outside-range': {
    run: async (emu) => {
      await issueSupport(emu);
      return call(emu, 'E6', { headers: AUTH, body: annul('5000000') });
    },
  },
  'E6-400-http200-prefix-without-range': {
    run: async (emu) => {
      await issueSupport(emu);
      return call(emu, 'E6', { headers: AUTH, body: { ...annul('7'), SeriePrefix: 'SETP' } });
    },
  },
  'E6-400-http200': { run: (emu) => call(emu, 'E6', { headers: AUTH, body: annul() }) },
  'E6-401-http200': { run: (emu) => call(emu, 'E6', { headers: BAD_KEY, body: annul() }) },
  'E6-500-http500': {
    run: async (emu) => {
      await fault(emu, { errorRate: 1 });
      return call(emu, 'E6', { headers: AUTH, body: annul() });
    },
  },
  'E3-200-true': {
    run: (emu) => call(emu, 'E3', { form: posForm({ companyId: '1001', prefijo: 'POS' }) }),
  },
  'E3-200-false': {
    run: (emu) =>
      call(emu, 'E3', {
        form: posForm({ companyId: '1001', prefijo: 'POS', numeroDocumento: '99999999' }),
      }),
  },
  'E3-200-false-regla90': {
    run: async (emu) => {
      await call(emu, 'E3', {
        form: posForm({ companyId: '1001', prefijo: 'POS', numeroDocumento: '5' }),
      });
      return call(emu, 'E3', {
        form: posForm({ companyId: '1001', prefijo: 'POS', numeroDocumento: '5' }),
      });
    },
  },
  'E3-400-record': { run: (emu) => call(emu, 'E3', { form: posForm({ companyId: '1001' }) }) },
  'E7-200-enabled': { run: (emu) => call(emu, 'E7', { query: { companyId: '1001' } }) },
  'E7-200-not-enabled': {
    edit: setting('pos', 'fail'),
    run: (emu) => call(emu, 'E7', { query: { companyId: '1001' } }),
  },
  'E8-200-http200': { run: (emu) => call(emu, 'E8', { headers: AUTH }) },
  'E8-304-http200': {
    edit: setting('invoice', 'fail'),
    run: (emu) => call(emu, 'E8', { headers: AUTH }),
  },
  'E8-401-http200': { run: (emu) => call(emu, 'E8', { headers: BAD_KEY }) },
  'E8-500-http500': {
    edit: setting('invoice', 'error'),
    run: (emu) => call(emu, 'E8', { headers: AUTH }),
  },
  'E9-200-http200': { run: (emu, pathForm) => call(emu, 'E9', { pathForm, headers: AUTH }) },
  'E9-304-http200': {
    edit: setting('payroll', 'fail'),
    run: (emu, pathForm) => call(emu, 'E9', { pathForm, headers: AUTH }),
  },
  'E9-401-http200': { run: (emu, pathForm) => call(emu, 'E9', { pathForm, headers: BAD_KEY }) },
  'E9-500-http200': {
    edit: setting('payroll', 'error'),
    run: (emu, pathForm) => call(emu, 'E9', { pathForm, headers: AUTH }),
  },
  'E10-200-http200': {
    run: (emu, pathForm) =>
      call(emu, 'E10', { pathForm, headers: AUTH, query: { nit: '900123456' } }),
  },
  'E10-400-http400': { run: (emu, pathForm) => call(emu, 'E10', { pathForm, headers: AUTH }) },
  'E10-403-http403': {
    run: (emu, pathForm) =>
      call(emu, 'E10', { pathForm, headers: AUTH, query: { nit: '800197268' } }),
  },
  'E10-404-http404': {
    run: (emu, pathForm) =>
      call(emu, 'E10', {
        pathForm,
        headers: { 'x-api-key': 'demo-key-1001', 'x-company-id': '999' },
        query: { nit: '900123456' },
      }),
  },
  'E10-500-http500': {
    run: async (emu, pathForm) => {
      await fault(emu, { errorRate: 1, allEndpoints: true });
      return call(emu, 'E10', { pathForm, headers: AUTH, query: { nit: '900123456' } });
    },
  },
  'E11-200-http200': {
    run: (emu, pathForm) => call(emu, 'E11', { pathForm, headers: AUTH, body: newRange() }),
  },
  'E11-400-http400': {
    run: (emu, pathForm) =>
      call(emu, 'E11', {
        pathForm,
        headers: AUTH,
        body: { ...newRange(), StartValue: 10, EndValue: 1 },
      }),
  },
  'E11-403-http403': {
    run: (emu, pathForm) => call(emu, 'E11', { pathForm, headers: BAD_KEY, body: newRange() }),
  },
  'E11-500-http500': {
    run: async (emu, pathForm) => {
      await fault(emu, { errorRate: 1, allEndpoints: true });
      return call(emu, 'E11', { pathForm, headers: AUTH, body: newRange() });
    },
  },
  'E12-200-http200': { run: received({ start_date: '2026-11-01', end_date: '2026-11-30' }) },
  'E12-401-http401': { run: received({ start_date: '2026-11-01', end_date: '2026-11-30' }, {}) },
  'E12-500-http500-bad-date': {
    run: received({ start_date: '2026/11/01', end_date: '2026-11-30' }),
  },
  'E12-500-http500-processing': {
    run: async (emu, pathForm) => {
      await fault(emu, { errorRate: 1, allEndpoints: true });
      return received({ start_date: '2026-11-01', end_date: '2026-11-30' })(emu, pathForm);
    },
  },
  'E12-framework-http400': { run: received({ start_date: '2026-11-01' }) },
};

/** What the answer to a row's scenario must show: transport status, ResultCode, IsValid (or authorityStatus), the row's outcome, and the row's own details. */
export function expectRow(row: ResultCodeCase, result: CallResult, form: PathForm): void {
  expect(result.status).toBe(row.http);
  const body = result.body as Json;
  if (row.resultCode !== undefined) expect(body.ResultCode).toBe(row.resultCode);
  if (row.isValid !== undefined) expect(body.IsValid).toBe(row.isValid);
  if (row.authorityStatus !== undefined) expect(body.authorityStatus).toBe(row.authorityStatus);
  const headers = Object.fromEntries(result.headers.entries());
  const outcome = classify(row.op, result.status, result.body, headers);
  expect(outcome.kind).toBe(row.outcome);
  if (row.id.endsWith('regla90')) {
    expect(row.op === 'E3' ? body.erroresAuthority : body.Errors).toEqual([REGLA_90]);
  }
  if (row.id.endsWith('-number-outside-range') || row.id.endsWith('-prefix-without-range')) {
    // Spec additional rule 1: for a 400, ResultData repeats the error message.
    const sample = row.body as Json;
    expect({ Errors: body.Errors, ResultData: body.ResultData }).toEqual({
      Errors: sample.Errors,
      ResultData: sample.ResultData,
    });
  }
  if (row.id === 'E1-429-retry-after') {
    expect(result.headers.get('retry-after')).toBe('1');
    expect(outcome.retryAfterMs).toBe(1000);
  }
  if (row.id === 'E12-500-http500-bad-date') {
    expect(body.Errors).toEqual([badDateMessage('2026/11/01', '2026-11-30')]);
    expect(body.ResultData).toBeNull();
  }
  if (row.id === 'E12-framework-http400') {
    expect(Object.keys(body).sort()).toEqual(['error', 'path', 'status', 'timestamp']);
    expect(body).toMatchObject({ status: 400, error: 'Bad Request', path: pathFor('E12', form) });
  }
}
