import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  amountSchema,
  dateSchema,
  dateTimeSchema,
  documentReferenceSchema,
  envelopeSchema,
  formatIssuePath,
  formatZodIssues,
  identificationSchema,
  taxSubTotalSchema,
  taxTotalSchema,
} from '../../src/service/schemas/index.js';

describe('amounts are strings with two decimals', () => {
  test.each(['0.00', '1234.50', '57002.00', '999999999999.99'])('accepts %s', (value) => {
    expect(amountSchema.safeParse(value).success).toBe(true);
  });
  test.each(['1234.5', '1234', '1234.505', '-1.00', '01.00', '1,234.50', ' 1.00', '', '1e3'])(
    'rejects %j',
    (value) => {
      expect(amountSchema.safeParse(value).success).toBe(false);
    },
  );
  test('rejects a number where the spec wants a string', () => {
    expect(amountSchema.safeParse(1234.5).success).toBe(false);
  });
});

describe('dates', () => {
  test.each(['2026-11-20', '2024-02-29', '2026-12-31'])('yyyy-MM-dd accepts %s', (value) => {
    expect(dateSchema.safeParse(value).success).toBe(true);
  });
  test.each([
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-11-31',
    '20-11-2026',
    '2026-11-20T00:00:00',
    '2026-1-5',
  ])('yyyy-MM-dd rejects %s', (value) => {
    expect(dateSchema.safeParse(value).success).toBe(false);
  });
  test.each(['2026-11-20T10:15:00', '2024-02-29T23:59:59', '2026-01-01T00:00:00'])(
    'yyyy-MM-ddTHH:mm:ss accepts %s',
    (value) => {
      expect(dateTimeSchema.safeParse(value).success).toBe(true);
    },
  );
  test.each([
    '2026-02-30T10:00:00',
    '2026-11-20',
    '2026-11-20 10:15:00',
    '2026-11-20T24:00:00',
    '2026-11-20T10:60:00',
    '2026-11-20T10:15:00Z',
    '2026-11-20T10:15:00.000',
    '2026-11-20T10:15:00-05:00',
  ])('yyyy-MM-ddTHH:mm:ss rejects %s', (value) => {
    expect(dateTimeSchema.safeParse(value).success).toBe(false);
  });
});

describe('the date forms are read as the regular expressions of their format read them', () => {
  const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
  const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
  const calendar = (y: number, m: number, d: number): boolean => {
    const t = new Date(Date.UTC(2000, m - 1, d));
    t.setUTCFullYear(y);
    return m >= 1 && m <= 12 && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
  };
  const refDate = (v: string): boolean => {
    const m = DATE.exec(v);
    return m !== null && calendar(Number(m[1]), Number(m[2]), Number(m[3]));
  };
  const refDateTime = (v: string): boolean => {
    const m = DATE_TIME.exec(v);
    return (
      m !== null &&
      calendar(Number(m[1]), Number(m[2]), Number(m[3])) &&
      Number(m[4]) <= 23 &&
      Number(m[5]) <= 59 &&
      Number(m[6]) <= 59
    );
  };
  // each character of a valid date and time replaced by each of these, one at a time, and cut at every length
  const swaps = ['0', '1', '2', '3', '5', '9', '-', 'T', ':', ' ', '/', '.', '٣', 'x', ''];
  const texts = new Set<string>(['', '\n', '2024-02-29', '2023-02-29', '2000-02-29', '1900-02-29']);
  for (const base of ['2024-02-29T23:59:59', '2026-11-30T00:00:00', '0000-01-01T10:15:00']) {
    for (let cut = 0; cut <= base.length + 1; cut++) {
      texts.add(base.slice(0, cut));
      texts.add(`${base.slice(0, cut)}\n`);
    }
    for (let i = 0; i < base.length; i++)
      for (const c of swaps) {
        const t = base.slice(0, i) + c + base.slice(i + 1);
        texts.add(t);
        texts.add(t.slice(0, 10));
      }
  }

  test(`${texts.size} texts: the same answer for yyyy-MM-dd and yyyy-MM-ddTHH:mm:ss`, () => {
    for (const t of texts) {
      expect([t, dateSchema.safeParse(t).success]).toEqual([t, refDate(t)]);
      expect([t, dateTimeSchema.safeParse(t).success]).toEqual([t, refDateTime(t)]);
    }
  });
});

describe('shared request parts are strict', () => {
  test('Identification takes the four documented strings and nothing else', () => {
    const ok = {
      DocumentNumber: '900123456',
      DocumentType: '31',
      CountryCode: 'CO',
      CheckDigit: '8',
    };
    expect(identificationSchema.parse(ok)).toEqual(ok);
    const bad = identificationSchema.safeParse({ ...ok, Dv: '8' });
    expect(bad.success).toBe(false);
    if (!bad.success)
      expect(formatZodIssues(bad.error)).toEqual([{ path: 'Dv', message: 'unknown field' }]);
    expect(identificationSchema.safeParse({ ...ok, CheckDigit: 8 }).success).toBe(false);
  });
  test('a withholding subtotal may carry only TaxCategory and TaxPercentage', () => {
    expect(taxSubTotalSchema.safeParse({ TaxCategory: '05', TaxPercentage: '15.00' }).success).toBe(
      true,
    );
    expect(
      taxSubTotalSchema.safeParse({ TaxCategory: '01', TaxPercentage: '19', TaxAmount: '1.00' })
        .success,
    ).toBe(false);
    expect(taxTotalSchema.safeParse({ TaxCategory: '01', TaxAmount: '58853.85' }).success).toBe(
      true,
    );
  });
  test('a document reference IssueDate may be a date or a date-time, but a real one', () => {
    expect(
      documentReferenceSchema.safeParse({ DocumentReferred: 'SETP1', IssueDate: '2026-11-20' })
        .success,
    ).toBe(true);
    expect(
      documentReferenceSchema.safeParse({
        DocumentReferred: 'SETP1',
        IssueDate: '2026-11-20T08:00:00',
      }).success,
    ).toBe(true);
    expect(
      documentReferenceSchema.safeParse({ DocumentReferred: 'SETP1', IssueDate: '2026-02-30' })
        .success,
    ).toBe(false);
  });
});

describe('formatZodIssues', () => {
  test('renders nested paths as Lines[0].TaxSubTotals[1].TaxAmount', () => {
    expect(formatIssuePath(['Lines', 0, 'TaxSubTotals', 1, 'TaxAmount'])).toBe(
      'Lines[0].TaxSubTotals[1].TaxAmount',
    );
    expect(formatIssuePath([])).toBe('');
    expect(formatIssuePath([2, 'a'])).toBe('[2].a');
  });
  test('reports each unknown key at its own path', () => {
    const schema = z.strictObject({ Lines: z.array(z.strictObject({ Quantity: z.string() })) });
    const result = schema.safeParse({ Lines: [{ Quantity: '1', Qty: '1', Price: '2' }] });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(formatZodIssues(result.error)).toEqual([
        { path: 'Lines[0].Qty', message: 'unknown field' },
        { path: 'Lines[0].Price', message: 'unknown field' },
      ]);
    }
  });
});

describe('common envelope is read tolerantly', () => {
  test('an accepted answer with ResultData as a string', () => {
    const env = envelopeSchema.parse({
      Errors: [],
      IsValid: true,
      ResultCode: 200,
      Warning: [],
      ResultData: 'Procesado Correctamente.',
    });
    expect(env).toEqual({
      Errors: [],
      IsValid: true,
      ResultCode: 200,
      Warning: [],
      ResultData: 'Procesado Correctamente.',
    });
  });
  test('Warnings is read as Warning', () => {
    const env = envelopeSchema.parse({
      Errors: [],
      IsValid: true,
      ResultCode: 200,
      Warnings: ['Se usó la numeración por defecto'],
    });
    expect(env.Warning).toEqual(['Se usó la numeración por defecto']);
    expect('Warnings' in env).toBe(false);
  });
  test('Warnings is used when Warning is null', () => {
    expect(
      envelopeSchema.parse({ IsValid: true, ResultCode: 200, Warning: null, Warnings: ['b'] })
        .Warning,
    ).toEqual(['b']);
  });
  test('Warning wins when both are present', () => {
    const env = envelopeSchema.parse({
      IsValid: true,
      ResultCode: 200,
      Warning: ['a'],
      Warnings: ['b'],
    });
    expect(env.Warning).toEqual(['a']);
  });
  test('unknown fields are kept, missing or null message lists become empty', () => {
    const env = envelopeSchema.parse({
      IsValid: false,
      ResultCode: 401,
      Errors: null,
      TraceId: 'x1',
    });
    expect(env).toMatchObject({ Errors: [], Warning: [], TraceId: 'x1' });
    expect(env.ResultData).toBeUndefined();
  });
  test.each([
    ['null', null],
    ['an array of ranges', [{ Prefix: 'SETP' }]],
    ['a page object', { data: [], page: 1, per_page: 20, total: 0, total_pages: 0 }],
    ['a string', 'Procesado con errores.'],
  ])('ResultData may be %s', (_label, resultData) => {
    expect(
      envelopeSchema.parse({
        Errors: [],
        IsValid: false,
        ResultCode: 500,
        Warning: [],
        ResultData: resultData,
      }).ResultData,
    ).toEqual(resultData);
  });
  test.each([
    ['a body without IsValid', { ResultCode: 200 }],
    ['a body without ResultCode', { IsValid: true }],
    ['a ResultCode that is not an integer', { IsValid: true, ResultCode: '200' }],
    ['Errors that are not strings', { IsValid: false, ResultCode: 400, Errors: [{ msg: 'x' }] }],
    [
      'a framework error page',
      { timestamp: '2026-11-20T10:00:00', status: 400, error: 'Bad Request' },
    ],
    ['an array', []],
    ['a string', 'oops'],
  ])('rejects %s', (_label, body) => {
    expect(envelopeSchema.safeParse(body).success).toBe(false);
  });
});
