import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import {
  createNumberingRequestSchema,
  envelopeSchema,
  formatZodIssues,
  numberingDocumentTypeSchema,
  numberingRangeSchema,
  receivedDocumentSchema,
  receivedPageSchema,
} from '../../src/service/schemas/index.js';

function issuePaths(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : formatZodIssues(result.error).map((i) => i.path);
}

const createBody = {
  Prefix: 'SETP',
  AuthorizationNumber: '18760000001',
  ValidFrom: '2026-01-01T00:00:00',
  ValidTo: '2027-12-31T23:59:59',
  StartValue: 990000000,
  EndValue: 995000000,
  DocumentType: 'Invoice',
};

describe('E11 create-numbering request', () => {
  test('the required fields alone are accepted, optional ones too', () => {
    expect(createNumberingRequestSchema.parse(createBody)).toEqual(createBody);
    const full = {
      ...createBody,
      Nit: '900123456',
      EfectiveValue: 990000010,
      Name: 'Facturas',
      AutoIncrement: true,
    };
    expect(issuePaths(createNumberingRequestSchema, full)).toEqual([]);
  });

  test.each(['Invoice', 'CreditNote', 'DebitNote', 'ContingencyInvoice', 'SupportDocument', 'Pos'])(
    'DocumentType %s',
    (type) => {
      expect(numberingDocumentTypeSchema.parse(type)).toBe(type);
      expect(
        issuePaths(createNumberingRequestSchema, { ...createBody, DocumentType: type }),
      ).toEqual([]);
    },
  );

  test('an unknown DocumentType is rejected', () => {
    expect(
      issuePaths(createNumberingRequestSchema, { ...createBody, DocumentType: 'invoice' }),
    ).toEqual(['DocumentType']);
  });

  test('each missing required field is reported', () => {
    expect(issuePaths(createNumberingRequestSchema, {})).toEqual([
      'Prefix',
      'AuthorizationNumber',
      'ValidFrom',
      'ValidTo',
      'StartValue',
      'EndValue',
      'DocumentType',
    ]);
  });

  test('dates follow yyyy-MM-ddTHH:mm:ss and are real', () => {
    expect(
      issuePaths(createNumberingRequestSchema, {
        ...createBody,
        ValidFrom: '2026-01-01',
        ValidTo: '2026-02-30T00:00:00',
      }),
    ).toEqual(['ValidFrom', 'ValidTo']);
  });

  test('StartValue greater than EndValue and ValidFrom later than ValidTo accumulate with other messages', () => {
    const body = {
      ...createBody,
      StartValue: 10,
      EndValue: 9,
      ValidFrom: '2028-01-01T00:00:00',
      Prefx: 'x',
    };
    expect(issuePaths(createNumberingRequestSchema, body)).toEqual([
      'Prefx',
      'StartValue',
      'ValidFrom',
    ]);
  });

  test('a range of one number and a one-instant validity are allowed', () => {
    const body = { ...createBody, StartValue: 5, EndValue: 5, ValidTo: createBody.ValidFrom };
    expect(issuePaths(createNumberingRequestSchema, body)).toEqual([]);
  });

  test('values are integers and AutoIncrement a boolean', () => {
    expect(
      issuePaths(createNumberingRequestSchema, {
        ...createBody,
        StartValue: '1',
        EfectiveValue: 1.5,
        AutoIncrement: 'yes',
      }),
    ).toEqual(['StartValue', 'EfectiveValue', 'AutoIncrement']);
  });
});

describe('numbering range (E10 list, E11 create)', () => {
  const listed = {
    FromNumber: '990000000',
    ToNumber: '995000000',
    Prefix: 'SETP',
    ResolutionNumber: '18760000001',
    ResolutionDate: '2019-01-19',
    ResolutionType: '01',
    TechnicalKey: 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c',
    ValidDateFrom: '2019-01-19',
    ValidDateTo: '2030-01-19',
  };

  test('a listed range with yyyy-MM-dd dates', () => {
    expect(numberingRangeSchema.parse(listed)).toEqual(listed);
  });

  test('a created range echoes DocumentType, has null date and key, and date-times', () => {
    const created = {
      ...listed,
      ResolutionDate: null,
      ResolutionType: 'Invoice',
      TechnicalKey: null,
      ValidDateFrom: '2026-01-01T00:00:00',
      ValidDateTo: '2027-12-31T23:59:59',
    };
    expect(numberingRangeSchema.parse(created)).toEqual(created);
  });

  test('ValidDateTo earlier than ValidDateFrom is tolerated, unknown fields kept', () => {
    const odd = { ...listed, ValidDateTo: '2018-01-01', Id: 12 };
    expect(numberingRangeSchema.parse(odd)).toEqual(odd);
  });

  test('FromNumber is a string and dates have a documented form', () => {
    expect(
      issuePaths(numberingRangeSchema, {
        ...listed,
        FromNumber: 990000000,
        ValidDateFrom: '19/01/2019',
      }),
    ).toEqual(['FromNumber', 'ValidDateFrom']);
  });

  test('an E10 envelope carries an array of ranges', () => {
    const env = envelopeSchema.parse({
      Errors: [],
      IsValid: true,
      ResultCode: 200,
      Warning: [],
      ResultData: [listed],
    });
    expect(numberingRangeSchema.array().parse(env.ResultData)).toEqual([listed]);
  });
});

describe('received documents (E12)', () => {
  const doc = {
    cufe: 'b7c1e2',
    documentId: 'b7c1e2',
    documentCurrency: 'COP',
    documentDate: 'Fri, 20 Nov 2026 00:00:00 GMT',
    documentNumber: 'FE1234',
    documentType: 'Factura electrónica de venta',
    typeCode: '01',
    event: null,
    issueTime: '10:15:00-05:00',
    nit: '900123456',
    providerIdentification: '800197268',
    providerName: 'Proveedor S.A.S.',
    providerTaxSchemaId: '01',
    taxSchemaId: '01',
    paymentMeans: 'Crédito',
    paymentMeansCode: '42',
    paymentMeansDescription: null,
    receiptService: null,
    receivedDate: 'Fri, 20 Nov 2026 15:22:10 GMT',
    value: 395901.36,
    pdfDocument: '',
  };

  test('a received document, unknown fields kept', () => {
    expect(receivedDocumentSchema.parse({ ...doc, extra: 1 })).toEqual({ ...doc, extra: 1 });
    expect(receivedDocumentSchema.parse({ ...doc, event: 'Acuse de recibo' }).event).toBe(
      'Acuse de recibo',
    );
  });

  test('value is a number and nullable fields only take null or a string', () => {
    expect(
      issuePaths(receivedDocumentSchema, { ...doc, value: '395901.36', receiptService: 3 }),
    ).toEqual(['receiptService', 'value']);
  });

  test('a page and an empty page', () => {
    const page = { data: [doc], page: 1, per_page: 20, total: 1, total_pages: 1 };
    expect(receivedPageSchema.parse(page)).toEqual(page);
    const empty = { data: [], page: 1, per_page: 20, total: 0, total_pages: 0 };
    expect(receivedPageSchema.parse(empty)).toEqual(empty);
  });

  test('a page reports a broken element at its path', () => {
    expect(
      issuePaths(receivedPageSchema, {
        data: [doc, { ...doc, cufe: null }],
        page: 1,
        per_page: 20,
        total: 2,
      }),
    ).toEqual(['data[1].cufe', 'total_pages']);
  });
});
