import { describe, expect, it } from 'vitest';
import { classify, classifyNetworkError, isRepeatedNumberOnly } from '../../src/service/outcome.js';
import { OPERATION_IDS } from '../../src/service/endpoints.js';
import { badDateMessage, REGLA_90, RESULT_CODE_CASES } from '../cases/result-codes.js';

const NOW = Date.parse('2026-11-22T03:00:00Z');
const env = (
  ResultCode: number,
  IsValid: boolean,
  Errors: string[] = [],
  ResultData: unknown = null,
) => ({ Errors, IsValid, ResultCode, Warning: [], ResultData });

describe('result-code table (test/cases/result-codes.ts)', () => {
  it.each(RESULT_CODE_CASES.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const outcome = classify(c.op, c.http, c.body, c.headers ?? {}, { now: NOW });
    expect(outcome.kind).toBe(c.outcome);
    if (c.resultCode !== undefined) expect(outcome.resultCode).toBe(c.resultCode);
    if (c.isValid !== undefined) expect(outcome.isValid).toBe(c.isValid);
    if (c.retryAfterMs !== undefined) expect(outcome.retryAfterMs).toBe(c.retryAfterMs);
    expect(outcome.reason).toContain(c.op);
  });

  it.each(RESULT_CODE_CASES.map((c) => [c.id, c] as const))(
    '%s classifies the same from the raw body text',
    (_id, c) => {
      const text = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
      expect(classify(c.op, c.http, text, c.headers ?? {}, { now: NOW }).kind).toBe(c.outcome);
    },
  );

  it('covers every row of the spec table (E1 "200 or 500" and E12 500 split, E5/E6 per operation)', () => {
    const table = RESULT_CODE_CASES.filter((c) => c.source === 'table');
    expect(table).toHaveLength(42);
    expect(new Set(RESULT_CODE_CASES.map((c) => c.id)).size).toBe(RESULT_CODE_CASES.length);
    expect(new Set(table.map((c) => c.op))).toEqual(
      new Set(['E1', 'E2', 'E5', 'E6', 'E8', 'E9', 'E10', 'E11', 'E12']),
    );
    for (const c of RESULT_CODE_CASES) expect(OPERATION_IDS).toContain(c.op);
  });

  it('a rejection keeps the authority reasons as messages and the Warning list as warnings', () => {
    const outcome = classify('E6', 200, {
      ...env(200, false, ['Regla: DSAJ01, Rechazo: x']),
      Warning: ['No se informaron líneas'],
    });
    expect(outcome).toMatchObject({
      kind: 'rejected',
      messages: ['Regla: DSAJ01, Rechazo: x'],
      warnings: ['No se informaron líneas'],
    });
  });

  it('E5 400 in HTTP 200 with empty Errors reports the message repeated in ResultData', () => {
    const outcome = classify(
      'E5',
      200,
      env(400, false, [], 'Total.PayableAmount does not add up.'),
    );
    expect(outcome).toMatchObject({
      kind: 'invalid',
      messages: ['Total.PayableAmount does not add up.'],
    });
  });

  it('accepts Warnings as an alias of Warning', () => {
    expect(
      classify('E5', 200, {
        ...env(200, true),
        Warning: undefined,
        Warnings: ['Numeración por defecto'],
      }).warnings,
    ).toEqual(['Numeración por defecto']);
  });
});

describe('repeated-number rule (Regla 90)', () => {
  it('is a duplicate only when it is the only rejection reason', () => {
    expect(
      classify('E1', 200, env(200, false, [REGLA_90, 'Regla: FAD06, Rechazo: total'])).kind,
    ).toBe('rejected');
    expect(
      classify('E1', 200, env(200, false, [REGLA_90, 'Regla: FAJ43b, Notificación: nombre'])).kind,
    ).toBe('duplicate');
    expect(classify('E1', 200, env(200, false, [])).kind).toBe('rejected');
    expect(isRepeatedNumberOnly([REGLA_90])).toBe(true);
    expect(isRepeatedNumberOnly(['Regla: 900, Rechazo: otra'])).toBe(false);
  });

  it('E3 POS rejection for a repeated number is a duplicate; authorityStatus may arrive as a boolean', () => {
    expect(classify('E3', 200, { authorityStatus: false, erroresAuthority: [REGLA_90] }).kind).toBe(
      'duplicate',
    );
    expect(classify('E3', 200, { authorityStatus: true, erroresAuthority: [] }).kind).toBe(
      'accepted',
    );
    expect(classify('E3', 200, { authorityStatus: 'maybe' }).kind).toBe('unknown');
  });
});

describe('any operation', () => {
  it.each([429, 502, 503, 504])('HTTP %i is transient', (status) => {
    for (const op of OPERATION_IDS) expect(classify(op, status, '').kind).toBe('transient');
  });

  it('Retry-After in seconds and as an HTTP-date measured from the response Date header', () => {
    expect(classify('E12', 503, '', { 'Retry-After': '7' }).retryAfterMs).toBe(7000);
    const headers = {
      date: 'Sun, 22 Nov 2026 03:00:00 GMT',
      'retry-after': 'Sun, 22 Nov 2026 03:00:30 GMT',
    };
    expect(classify('E1', 429, 'slow down', headers).retryAfterMs).toBe(30_000);
    expect(
      classify('E1', 503, '', { 'retry-after': 'Sun, 22 Nov 2026 03:00:05 GMT' }, { now: NOW })
        .retryAfterMs,
    ).toBe(5000);
    expect(classify('E1', 503, '', { 'retry-after': ['3'] }).retryAfterMs).toBe(3000);
    expect(classify('E1', 503, '', { 'retry-after': 'soon' }).retryAfterMs).toBeUndefined();
    expect(classify('E1', 400, '', { 'retry-after': '3' }).retryAfterMs).toBeUndefined();
  });

  it('other 401/403 are unauthorized, other 4xx invalid, other 5xx transient, 3xx unknown', () => {
    expect(classify('E1', 401, 'Unauthorized').kind).toBe('unauthorized');
    expect(classify('E5', 403, '').kind).toBe('unauthorized');
    expect(classify('E8', 404, '<html>not found</html>').kind).toBe('invalid');
    expect(classify('E9', 413, '').kind).toBe('invalid');
    expect(classify('E11', 501, '').kind).toBe('transient');
    expect(classify('E10', 302, '').kind).toBe('unknown');
  });

  it('a 2xx body that cannot be understood is unknown and keeps the raw text', () => {
    const html = classify('E1', 200, '<html>maintenance</html>');
    expect(html).toMatchObject({ kind: 'unknown', raw: '<html>maintenance</html>' });
    expect(classify('E2', 200, '').kind).toBe('unknown');
    expect(classify('E2', 200, '{"broken":').kind).toBe('unknown');
    expect(classify('E10', 200, [1, 2]).kind).toBe('unknown');
    expect(classify('E1', 200, env(304, false)).kind).toBe('unknown');
    expect(classify('E5', 200, env(500, false)).kind).toBe('unknown');
  });

  it('E12 bad dates are invalid whatever the transport status; other E12 500s transient', () => {
    expect(
      classify('E12', 500, env(500, false, [badDateMessage('01/11/2026', '2026-11-30')])).kind,
    ).toBe('invalid');
    expect(classify('E12', 200, env(500, false, [badDateMessage('x', 'y')])).kind).toBe('invalid');
    expect(classify('E12', 500, env(500, false, ['database unavailable'])).kind).toBe('transient');
  });

  it('E12 framework 400 keeps the raw body', () => {
    const text =
      '{"timestamp":"2026-11-22T03:00:00Z","status":400,"error":"Bad Request","path":"/x"}';
    expect(classify('E12', 400, text)).toMatchObject({
      kind: 'invalid',
      raw: text,
      messages: ['Bad Request'],
    });
    expect(
      classify('E12', 400, 'Required request parameter start_date is not present'),
    ).toMatchObject({
      kind: 'invalid',
      raw: 'Required request parameter start_date is not present',
    });
  });
});

describe('E4 and E7 (response not shown): tolerant', () => {
  it('E4 reads whichever documented shape it gets', () => {
    expect(classify('E4', 200, env(200, true, [], 'Procesado Correctamente.')).kind).toBe(
      'accepted',
    );
    expect(
      classify('E4', 200, {
        authorityStatus: 'false',
        erroresAuthority: ['Regla: FAU04, Rechazo: x'],
      }).kind,
    ).toBe('rejected');
    expect(
      classify('E4', 400, {
        status: 400,
        error: 'Bad Request',
        message: 'jsonOriginal: required',
        details: ['jsonOriginal: required'],
        correlationId: 'c',
      }),
    ).toMatchObject({
      kind: 'invalid',
      messages: ['jsonOriginal: required', 'jsonOriginal: required'],
    });
    expect(classify('E4', 200, { status: 422, error: 'Unprocessable' }).kind).toBe('invalid');
    expect(classify('E4', 200, 'OK')).toMatchObject({ kind: 'unknown', raw: 'OK' });
  });

  it('E7 commissioning record decides by habilitado; failures by status', () => {
    expect(classify('E7', 200, { habilitado: true, mensaje: 'ok', detalle: [] }).kind).toBe(
      'accepted',
    );
    expect(
      classify('E7', 200, {
        habilitado: false,
        mensaje: 'Ningún documento fue aceptado.',
        detalle: ['POS1: RECHAZADO'],
      }),
    ).toMatchObject({
      kind: 'rejected',
      messages: ['Ningún documento fue aceptado.', 'POS1: RECHAZADO'],
    });
    expect(classify('E7', 500, 'boom')).toMatchObject({ kind: 'transient', raw: 'boom' });
    expect(
      classify('E7', 400, { status: 400, error: 'Bad Request', message: 'companyId is required' })
        .kind,
    ).toBe('invalid');
  });
});

describe('classifyNetworkError', () => {
  it('names the error code, found on the error or its cause', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifyNetworkError(reset)).toMatchObject({
      kind: 'transient',
      errorCode: 'ECONNRESET',
      delivery: 'maybe-sent',
    });
    expect(classifyNetworkError(reset).messages[0]).toContain('ECONNRESET');
    const wrapped = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyNetworkError(wrapped)).toMatchObject({
      errorCode: 'ECONNREFUSED',
      delivery: 'not-sent',
    });
    const connect = Object.assign(new Error('Connect Timeout Error'), {
      code: 'UND_ERR_CONNECT_TIMEOUT',
    });
    expect(classifyNetworkError(connect).delivery).toBe('not-sent');
    const headers = Object.assign(new Error('Headers Timeout Error'), {
      code: 'UND_ERR_HEADERS_TIMEOUT',
    });
    expect(classifyNetworkError(headers)).toMatchObject({
      kind: 'transient',
      delivery: 'maybe-sent',
    });
  });

  it('an argument the HTTP client refuses (undici InvalidArgumentError, Node ERR_INVALID_CHAR) is invalid and never sent', () => {
    const header = Object.assign(new Error('invalid x-api-key header'), {
      name: 'InvalidArgumentError',
      code: 'UND_ERR_INVALID_ARG',
    });
    expect(classifyNetworkError(header)).toMatchObject({
      kind: 'invalid',
      delivery: 'not-sent',
      errorCode: 'UND_ERR_INVALID_ARG',
    });
    const char = Object.assign(new TypeError('Invalid character in header content ["x-api-key"]'), {
      code: 'ERR_INVALID_CHAR',
    });
    expect(classifyNetworkError(char)).toMatchObject({ kind: 'invalid', delivery: 'not-sent' });
  });

  it('aborts and values that are not errors are still transient', () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(classifyNetworkError(abort).errorCode).toBe('ABORT_ERR');
    expect(classifyNetworkError('weird')).toMatchObject({
      kind: 'transient',
      errorCode: 'UNKNOWN',
    });
  });
});
