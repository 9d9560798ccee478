import { describe, expect, it } from 'vitest';
import {
  canonicalPosTipo,
  E13_NOTE,
  ENDPOINTS,
  isOperationId,
  matchEndpoint,
  OPERATION_IDS,
  pathFor,
  POS_TIPOS,
} from '../../src/service/endpoints.js';
import { ERRORS } from '../../src/errors.js';

describe('endpoint table', () => {
  it('lists E1 to E12 and nothing else', () => {
    expect(OPERATION_IDS).toEqual([
      'E1',
      'E2',
      'E3',
      'E4',
      'E5',
      'E6',
      'E7',
      'E8',
      'E9',
      'E10',
      'E11',
      'E12',
    ]);
    expect(isOperationId('E13')).toBe(false);
    expect(isOperationId('toString')).toBe(false);
  });

  it('E13 is documented as not implemented, with its catalogue code', () => {
    expect(E13_NOTE).toMatchObject({ id: 'E13', method: 'GET', implemented: false });
    expect(ERRORS).toHaveProperty(E13_NOTE.errorCode);
  });

  it('has the spec paths and aliases', () => {
    expect(pathFor('E1', 'primary')).toBe('/svcOrchestratorController/v1/process-invoice');
    expect(pathFor('E2', 'primary')).toBe('/public/api/nomina/v1/payroll-xml-controller/process');
    expect(pathFor('E2', 'alias')).toBe('/api/externalPayrollController/process');
    expect(pathFor('E4')).toBe('/api/pos/documents/send-public-key');
    expect(pathFor('E5')).toBe('/svcGeneratorDSController/v1/process-support-document');
    expect(pathFor('E6')).toBe('/svcGeneratorDSController/v1/process-adjustment-note');
    expect(pathFor('E7')).toBe('/api/pos/habilitacion');
    expect(pathFor('E8', 'alias')).toBe('/HabAuthorityTest/process-hab');
    expect(pathFor('E9')).toBe('/svcHabNominaController/process-hab');
    expect(pathFor('E9', 'alias')).toBe(
      '/public/api/nomina/v1/hab-nomina-controller/send-nomina-hab',
    );
    expect(pathFor('E10')).toBe('/public/api/numeraciones/v1/by-nit');
    expect(pathFor('E10', 'alias')).toBe('/public/api/numeraciones/by-nit');
    expect(pathFor('E11')).toBe('/public/api/numeraciones/v1/create');
    expect(pathFor('E11', 'alias')).toBe('/public/api/numeraciones/create');
    expect(pathFor('E12')).toBe('/public/api/mail-receiver/v1/received-invoices');
    expect(pathFor('E12', 'alias')).toBe('/public/svcMailReceiver/received-invoices');
  });

  it('E3 takes tipo pos | nota-ajuste-credito | nota-ajuste-debito and the alias nota-ajuste', () => {
    expect(pathFor('E3')).toBe('/api/pos/documents/pos');
    for (const tipo of [...POS_TIPOS, 'nota-ajuste'])
      expect(pathFor('E3', 'alias', { tipo })).toBe(`/api/pos/documents/${tipo}`);
    expect(canonicalPosTipo('nota-ajuste')).toBe('nota-ajuste-credito');
    expect(canonicalPosTipo('factura')).toBeUndefined();
    expect(() => pathFor('E3', 'primary', { tipo: '../send-public-key' })).toThrow(RangeError);
  });

  it('names the headers of each operation as the Authentication section does', () => {
    const keyAndCompany = ['x-api-key', 'x-company-id'];
    for (const op of ['E1', 'E5', 'E6', 'E8', 'E9', 'E10', 'E11', 'E12'] as const) {
      expect(ENDPOINTS[op].headers).toEqual({ required: keyAndCompany, optional: [] });
    }
    expect(ENDPOINTS.E2.headers).toEqual({
      required: ['x-api-key', 'x-company-id', 'x-user-id'],
      optional: [],
    });
    expect(ENDPOINTS.E3.headers).toEqual({ required: [], optional: ['x-user-id'] });
    expect(ENDPOINTS.E4.headers).toEqual({ required: ['x-api-key'], optional: [] });
    expect(ENDPOINTS.E7.headers).toEqual({ required: [], optional: ['user-id'] });
  });

  it('gives each operation its method, response style and query parameters', () => {
    expect(OPERATION_IDS.filter((op) => ENDPOINTS[op].method === 'GET')).toEqual(['E10', 'E12']);
    expect(ENDPOINTS.E3.style).toBe('pos-record');
    expect(ENDPOINTS.E4.style).toBe('unknown');
    expect(ENDPOINTS.E7.style).toBe('commissioning-record');
    expect(OPERATION_IDS.filter((op) => ENDPOINTS[op].style === 'envelope')).toEqual([
      'E1',
      'E2',
      'E5',
      'E6',
      'E8',
      'E9',
      'E10',
      'E11',
      'E12',
    ]);
    expect(ENDPOINTS.E7.query).toEqual({
      required: ['companyId'],
      optional: ['cantidad', 'testId'],
    });
    expect(ENDPOINTS.E12.query).toEqual({
      required: ['start_date', 'end_date'],
      optional: ['page', 'per_page'],
    });
  });
});

describe('matchEndpoint (emulator routing)', () => {
  it('finds every primary and alias path back', () => {
    for (const op of OPERATION_IDS) {
      const def = ENDPOINTS[op];
      expect(matchEndpoint(def.method, pathFor(op, 'primary'))).toMatchObject({
        op,
        form: 'primary',
      });
      if (def.alias !== undefined)
        expect(matchEndpoint(def.method, def.alias)).toEqual({ op, form: 'alias', params: {} });
    }
  });

  it('routes E4 before the E3 template, maps nota-ajuste, and refuses unknown paths and methods', () => {
    expect(matchEndpoint('POST', '/api/pos/documents/send-public-key')?.op).toBe('E4');
    expect(matchEndpoint('post', '/api/pos/documents/nota-ajuste/')).toEqual({
      op: 'E3',
      form: 'primary',
      params: { tipo: 'nota-ajuste-credito', tipoAsSent: 'nota-ajuste' },
    });
    expect(matchEndpoint('POST', '/api/pos/documents/factura')).toBeUndefined();
    expect(matchEndpoint('GET', '/svcOrchestratorController/v1/process-invoice')).toBeUndefined();
    expect(matchEndpoint('POST', '/nope')).toBeUndefined();
  });
});
