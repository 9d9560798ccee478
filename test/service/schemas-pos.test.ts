import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import {
  formatZodIssues,
  posCommissioningRecordSchema,
  posDocumentContentSchema,
  posErrorRecordSchema,
  posJsonRequestSchema,
  posRecordSchema,
} from '../../src/service/schemas/index.js';
import { loadRequestFixture, requestFixtureText } from '../fixtures/requests/index.js';

function issuePaths(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : formatZodIssues(result.error).map((i) => i.path);
}

describe('POS document content', () => {
  test('the fixture matches the POS content schema', () => {
    const content = loadRequestFixture('pos-content');
    expect(posDocumentContentSchema.parse(content)).toEqual(content);
  });

  test('totales values are numbers', () => {
    const content = loadRequestFixture('pos-content');
    (content.totales as Record<string, unknown>).valorNeto = '23800';
    expect(issuePaths(posDocumentContentSchema, content)).toEqual(['totales.valorNeto']);
  });

  test('unknown keys are reported at their path', () => {
    const content = loadRequestFixture('pos-content');
    (content.documento as { cajaVenta: Record<string, unknown> }).cajaVenta.caja = '1';
    (content.detalles as { tributos: Record<string, unknown>[] }[])[0].tributos[0].tarifa = 19;
    content.total = {};
    expect(issuePaths(posDocumentContentSchema, content)).toEqual([
      'documento.cajaVenta.caja',
      'detalles[0].tributos[0].tarifa',
      'total',
    ]);
  });
});

describe('E4 POS JSON body', () => {
  const body = () => ({
    companyId: 1,
    prefijo: 'POS',
    tipoFactura: 'pos',
    enviarCorreo: false,
    numero: 1001,
    jsonOriginal: requestFixtureText('pos-content'),
  });

  test('a body carrying the fixture as jsonOriginal is accepted', () => {
    expect(issuePaths(posJsonRequestSchema, body())).toEqual([]);
  });

  test.each(['pos', 'nota-ajuste-credito', 'nota-ajuste-debito', 'nota-ajuste'])(
    'tipoFactura %s is an E3 alias',
    (tipo) => {
      expect(issuePaths(posJsonRequestSchema, { ...body(), tipoFactura: tipo })).toEqual([]);
    },
  );

  test('tipoFactura outside the E3 aliases is rejected', () => {
    expect(issuePaths(posJsonRequestSchema, { ...body(), tipoFactura: 'factura' })).toEqual([
      'tipoFactura',
    ]);
  });

  test('companyId and numero are integers, enviarCorreo a boolean', () => {
    expect(
      issuePaths(posJsonRequestSchema, {
        ...body(),
        companyId: '1',
        numero: 1.5,
        enviarCorreo: 'true',
      }),
    ).toEqual(['companyId', 'enviarCorreo', 'numero']);
  });

  test('jsonOriginal must be JSON text of valid POS content, issues reported inside it', () => {
    expect(issuePaths(posJsonRequestSchema, { ...body(), jsonOriginal: '{not json' })).toEqual([
      'jsonOriginal',
    ]);
    expect(
      issuePaths(posJsonRequestSchema, { ...body(), jsonOriginal: { documento: {} } }),
    ).toEqual(['jsonOriginal']);
    const content = loadRequestFixture('pos-content');
    (content.totales as Record<string, unknown>).valorBruto = '20000';
    content.extra = true;
    expect(
      issuePaths(posJsonRequestSchema, { ...body(), jsonOriginal: JSON.stringify(content) }),
    ).toEqual(['jsonOriginal.totales.valorBruto', 'jsonOriginal.extra']);
  });

  test('unknown body keys are rejected', () => {
    expect(issuePaths(posJsonRequestSchema, { ...body(), numeroDocumento: 5 })).toEqual([
      'numeroDocumento',
    ]);
  });
});

describe('POS records (responses, read tolerantly)', () => {
  const accepted = {
    idDocumento: 5521,
    estado: 1,
    descripcion: 'Procesado Correctamente.',
    authorityStatus: 'true',
    cude: 'c0ffee',
    prefijo: 'POS',
    numeroDocumento: '1001',
    qr: 'https://catalogo-vpfe.example/document/searchqr?documentkey=c0ffee',
    erroresAuthority: [],
    notificaciones: ['Regla: FAJ44b, Notificación: el correo no se envió'],
    rutaContenedor: null,
    valorFirma: null,
  };

  test('an accepted E3 record', () => {
    expect(posRecordSchema.parse(accepted)).toEqual(accepted);
  });

  test('a rejected E3 record has authorityStatus "false" and reasons', () => {
    const rejected = {
      ...accepted,
      authorityStatus: 'false',
      qr: null,
      erroresAuthority: ['Regla: FAD06, Rechazo: CUDE no válido'],
    };
    expect(posRecordSchema.parse(rejected).authorityStatus).toBe('false');
  });

  test('authorityStatus is the text "true" or "false", not a boolean', () => {
    expect(issuePaths(posRecordSchema, { ...accepted, authorityStatus: true })).toEqual([
      'authorityStatus',
    ]);
    expect(issuePaths(posRecordSchema, { ...accepted, authorityStatus: 'TRUE' })).toEqual([
      'authorityStatus',
    ]);
  });

  test('unknown fields are kept and null lists read as empty', () => {
    const record = posRecordSchema.parse({ ...accepted, erroresAuthority: null, dianTrackId: 'x' });
    expect(record.erroresAuthority).toEqual([]);
    expect(record.dianTrackId).toBe('x');
  });

  test('the E3 400 error record', () => {
    const error = {
      status: 400,
      error: 'Bad Request',
      message: 'Validation failed',
      details: ['prefijo: must not be blank'],
      correlationId: '9a1f',
    };
    expect(posErrorRecordSchema.parse(error)).toEqual(error);
    expect(issuePaths(posErrorRecordSchema, { ...error, status: '400' })).toEqual(['status']);
  });

  test('the E7 commissioning record', () => {
    const record = {
      companyId: 7,
      solicitados: 2,
      aceptados: 0,
      rechazados: 2,
      habilitado: false,
      mensaje: 'Ningún documento fue aceptado',
      detalle: ['POS1 rechazado FAD06', 'POS2 rechazado FAD06'],
    };
    expect(posCommissioningRecordSchema.parse(record)).toEqual(record);
    expect(issuePaths(posCommissioningRecordSchema, { ...record, habilitado: 'false' })).toEqual([
      'habilitado',
    ]);
  });
});
