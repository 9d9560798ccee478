/**
 * The spec's "Result codes by operation" table as data, plus the extra cases
 * the spec documents elsewhere (E12's framework 400, E3's POS records, E7's
 * commissioning record, 429 + Retry-After, the repeated-number rule 90).
 *
 * Shared by the outcome classification test and the emulator's contract test,
 * so the two cannot drift apart: the emulator provokes each row over HTTP and
 * asserts `http`, `resultCode` and `isValid`; `classify()` must give `outcome`.
 *
 * Row ids: `<op>-<ResultCode>-http<HTTP>` plus a suffix where one table row
 * splits ("200 or 500", IsValid true/false) or an extra case needs a name.
 * Rows written for "E5, E6" appear once per operation.
 */
import type { OperationId } from '../../src/service/endpoints.js';

export type ExpectedOutcome =
  'accepted' | 'rejected' | 'duplicate' | 'invalid' | 'unauthorized' | 'transient' | 'unknown';

export interface ResultCodeCase {
  id: string;
  op: OperationId;
  /** ResultCode of the envelope; absent when the body is not an envelope. */
  resultCode?: number;
  /** Transport status. */
  http: number;
  /** IsValid of the envelope; absent when the body is not an envelope. */
  isValid?: boolean;
  /** The spec's words for this row. */
  meaning: string;
  outcome: ExpectedOutcome;
  /** 'table' = a row of the result-code table; 'extra' = documented elsewhere in the spec or in PRODUCT. */
  source: 'table' | 'extra';
  /** A sample body for this row (parsed JSON, or raw text when the body is not JSON). */
  body: unknown;
  /** Response headers that matter for the row (Retry-After). */
  headers?: Record<string, string>;
  /** Expected `retryAfterMs` of the outcome. */
  retryAfterMs?: number;
  /** E3 only: the POS record's authorityStatus. */
  authorityStatus?: 'true' | 'false';
}

export const REGLA_90 = 'Regla: 90, Rechazo: Documento procesado anteriormente.';
export const OK_MESSAGE = 'Procesado Correctamente.';
export const SUPPORT_REJECTED_MESSAGE = 'Procesado con errores.';
/** The message the emulator's E12 answers for a date not in yyyy-MM-dd. */
export function badDateMessage(startDate: string, endDate: string): string {
  return `Invalid date format. Expected yyyy-MM-dd, received start_date='${startDate}', end_date='${endDate}'`;
}

function env(
  ResultCode: number,
  IsValid: boolean,
  ResultData: unknown,
  Errors: string[] = [],
  Warning: string[] = [],
) {
  return { Errors, IsValid, ResultCode, Warning, ResultData };
}

const RANGE = {
  FromNumber: '1',
  ToNumber: '5000',
  Prefix: 'SETP',
  ResolutionNumber: '18760000001',
  ResolutionDate: '2026-01-15',
  ResolutionType: '01',
  TechnicalKey: 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c',
  ValidDateFrom: '2026-01-15',
  ValidDateTo: '2027-01-15',
};
const CREATED_RANGE = {
  ...RANGE,
  ResolutionDate: null,
  ResolutionType: 'Invoice',
  TechnicalKey: null,
  ValidDateFrom: '2026-01-15T00:00:00',
  ValidDateTo: '2027-01-15T00:00:00',
};
const REJECT_FAD = 'Regla: FAD06, Rechazo: El valor total no coincide con la suma de las líneas.';
const NOT_ENABLED = 'Regla: 304, El set de pruebas no fue aceptado.';

function posRecord(authorityStatus: 'true' | 'false', erroresAuthority: string[] = []) {
  return {
    idDocumento: 1017,
    estado: authorityStatus === 'true' ? 1 : 2,
    descripcion:
      authorityStatus === 'true'
        ? 'Documento aceptado por la autoridad.'
        : 'Documento rechazado por la autoridad.',
    authorityStatus,
    cude: 'a1b2c3d4e5f6',
    prefijo: 'POS',
    numeroDocumento: '1017',
    qr:
      authorityStatus === 'true'
        ? 'https://catalogo-vpfe.example/document/searchqr?documentkey=a1b2c3d4e5f6'
        : null,
    erroresAuthority,
    notificaciones: [],
    rutaContenedor: null,
    valorFirma: null,
  };
}

export const RESULT_CODE_CASES: readonly ResultCodeCase[] = [
  // --- E1 ------------------------------------------------------------------
  {
    id: 'E1-200-http200-valid',
    op: 'E1',
    resultCode: 200,
    http: 200,
    isValid: true,
    source: 'table',
    meaning: 'Accepted by the authority.',
    outcome: 'accepted',
    body: env(200, true, OK_MESSAGE),
  },
  {
    id: 'E1-200-http200-invalid',
    op: 'E1',
    resultCode: 200,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Rejected by the authority; detail in Errors.',
    outcome: 'rejected',
    body: env(200, false, 'Documento rechazado.', [REJECT_FAD]),
  },
  {
    id: 'E1-401-http200',
    op: 'E1',
    resultCode: 401,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Invalid credentials.',
    outcome: 'unauthorized',
    body: env(401, false, 'Credenciales inválidas.', ['Credenciales inválidas.']),
  },
  {
    id: 'E1-500-http200',
    op: 'E1',
    resultCode: 500,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Error processing (controlled): final, not retried automatically.',
    outcome: 'unknown',
    body: env(500, false, 'Error procesando el documento.', ['Error procesando el documento.']),
  },
  {
    id: 'E1-500-http500',
    op: 'E1',
    resultCode: 500,
    http: 500,
    isValid: false,
    source: 'table',
    meaning: 'Error processing; only an uncontrolled error gives HTTP 500.',
    outcome: 'transient',
    body: env(500, false, null, ['Error inesperado.']),
  },
  // --- E2 ------------------------------------------------------------------
  {
    id: 'E2-200-http200',
    op: 'E2',
    resultCode: 200,
    http: 200,
    isValid: true,
    source: 'table',
    meaning: 'Payroll accepted.',
    outcome: 'accepted',
    body: env(200, true, OK_MESSAGE),
  },
  {
    id: 'E2-422-http200',
    op: 'E2',
    resultCode: 422,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Rejected by the authority.',
    outcome: 'rejected',
    body: env(422, false, 'Documento rechazado.', [
      'Regla: NIE024, Rechazo: El valor del devengado total no coincide.',
    ]),
  },
  {
    id: 'E2-401-http401',
    op: 'E2',
    resultCode: 401,
    http: 401,
    isValid: false,
    source: 'table',
    meaning: 'Header x-api-key missing.',
    outcome: 'unauthorized',
    body: env(401, false, null, ['Header x-api-key is required.']),
  },
  {
    id: 'E2-400-http400',
    op: 'E2',
    resultCode: 400,
    http: 400,
    isValid: false,
    source: 'table',
    meaning: 'x-company-id, x-user-id or body missing, or body invalid.',
    outcome: 'invalid',
    body: env(400, false, null, ['Header x-user-id is required.']),
  },
  {
    id: 'E2-502-http502',
    op: 'E2',
    resultCode: 502,
    http: 502,
    isValid: false,
    source: 'table',
    meaning: 'Communication error with the authority.',
    outcome: 'transient',
    body: env(502, false, null, ['Error de comunicación con la autoridad.']),
  },
  {
    id: 'E2-500-http500',
    op: 'E2',
    resultCode: 500,
    http: 500,
    isValid: false,
    source: 'table',
    meaning: 'Unexpected error.',
    outcome: 'transient',
    body: env(500, false, null, ['Error inesperado.']),
  },
  // --- E5, E6 (one row per operation) --------------------------------------
  ...(['E5', 'E6'] as const).flatMap((op): ResultCodeCase[] => [
    {
      id: `${op}-200-http200-valid`,
      op,
      resultCode: 200,
      http: 200,
      isValid: true,
      source: 'table',
      meaning: 'Issued and accepted.',
      outcome: 'accepted',
      body: env(
        200,
        true,
        OK_MESSAGE,
        [],
        op === 'E6' ? ['No se informaron líneas; se anula el documento referenciado.'] : [],
      ),
    },
    {
      id: `${op}-200-http200-invalid`,
      op,
      resultCode: 200,
      http: 200,
      isValid: false,
      source: 'table',
      meaning: 'Issued but rejected by the authority; detail in Errors.',
      outcome: 'rejected',
      body: env(200, false, SUPPORT_REJECTED_MESSAGE, [
        'Regla: DSAJ01, Rechazo: El valor del IVA no corresponde.',
      ]),
    },
    {
      id: `${op}-400-http200`,
      op,
      resultCode: 400,
      http: 200,
      isValid: false,
      source: 'table',
      meaning:
        op === 'E5'
          ? 'Data do not allow issuing (structure, dates, totals, numbering).'
          : 'Data do not allow issuing; also a missing, unknown or unaccepted reference.',
      outcome: 'invalid',
      body: env(400, false, 'Lines[0].PeriodStartDate: more than 6 days before today.', [
        'Lines[0].PeriodStartDate: more than 6 days before today.',
      ]),
    },
    {
      id: `${op}-401-http200`,
      op,
      resultCode: 401,
      http: 200,
      isValid: false,
      source: 'table',
      meaning: 'Key does not correspond to the company.',
      outcome: 'unauthorized',
      body: env(401, false, 'The key does not correspond to company 1001.', [
        'The key does not correspond to company 1001.',
      ]),
    },
    {
      id: `${op}-500-http500`,
      op,
      resultCode: 500,
      http: 500,
      isValid: false,
      source: 'table',
      meaning: 'Unexpected error.',
      outcome: 'transient',
      body: env(500, false, null, ['Error inesperado.']),
    },
  ]),
  // --- E8 ------------------------------------------------------------------
  {
    id: 'E8-200-http200',
    op: 'E8',
    resultCode: 200,
    http: 200,
    isValid: true,
    source: 'table',
    meaning: 'Enabled (or already enabled).',
    outcome: 'accepted',
    body: env(200, true, 'La empresa quedó habilitada.'),
  },
  {
    id: 'E8-304-http200',
    op: 'E8',
    resultCode: 304,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Process ended without enabling.',
    outcome: 'rejected',
    body: env(304, false, 'Proceso terminado sin habilitar.', [NOT_ENABLED]),
  },
  {
    id: 'E8-401-http200',
    op: 'E8',
    resultCode: 401,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Invalid credentials.',
    outcome: 'unauthorized',
    body: env(401, false, 'Credenciales inválidas.', ['Credenciales inválidas.']),
  },
  {
    id: 'E8-500-http500',
    op: 'E8',
    resultCode: 500,
    http: 500,
    isValid: false,
    source: 'table',
    meaning: 'Error processing.',
    outcome: 'transient',
    body: env(500, false, null, ['Error procesando.']),
  },
  // --- E9 ------------------------------------------------------------------
  {
    id: 'E9-200-http200',
    op: 'E9',
    resultCode: 200,
    http: 200,
    isValid: true,
    source: 'table',
    meaning: 'Enabled (test set accepted).',
    outcome: 'accepted',
    body: env(200, true, 'Set de pruebas aceptado.'),
  },
  {
    id: 'E9-304-http200',
    op: 'E9',
    resultCode: 304,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Ended without enabling; see Errors.',
    outcome: 'rejected',
    body: env(304, false, 'Proceso terminado sin habilitar.', [NOT_ENABLED]),
  },
  {
    id: 'E9-401-http200',
    op: 'E9',
    resultCode: 401,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Invalid credentials.',
    outcome: 'unauthorized',
    body: env(401, false, 'Credenciales inválidas.', ['Credenciales inválidas.']),
  },
  {
    id: 'E9-500-http200',
    op: 'E9',
    resultCode: 500,
    http: 200,
    isValid: false,
    source: 'table',
    meaning: 'Error processing (controlled, in HTTP 200): final, not retried automatically.',
    outcome: 'unknown',
    body: env(500, false, 'Error procesando la habilitación.', [
      'Error procesando la habilitación.',
    ]),
  },
  // --- E10 -----------------------------------------------------------------
  {
    id: 'E10-200-http200',
    op: 'E10',
    resultCode: 200,
    http: 200,
    isValid: true,
    source: 'table',
    meaning: 'Active ranges returned.',
    outcome: 'accepted',
    body: env(200, true, [RANGE]),
  },
  {
    id: 'E10-400-http400',
    op: 'E10',
    resultCode: 400,
    http: 400,
    isValid: false,
    source: 'table',
    meaning: 'nit not sent.',
    outcome: 'invalid',
    body: env(400, false, null, ['The nit parameter is required.']),
  },
  {
    id: 'E10-403-http403',
    op: 'E10',
    resultCode: 403,
    http: 403,
    isValid: false,
    source: 'table',
    meaning: 'Invalid key, or nit does not match the company.',
    outcome: 'unauthorized',
    body: env(403, false, null, ['The nit does not match the company.']),
  },
  {
    id: 'E10-404-http404',
    op: 'E10',
    resultCode: 404,
    http: 404,
    isValid: false,
    source: 'table',
    meaning: 'Company does not exist.',
    outcome: 'invalid',
    body: env(404, false, null, ['Company 999 does not exist.']),
  },
  {
    id: 'E10-500-http500',
    op: 'E10',
    resultCode: 500,
    http: 500,
    isValid: false,
    source: 'table',
    meaning: 'Error processing.',
    outcome: 'transient',
    body: env(500, false, null, ['Error procesando.']),
  },
  // --- E11 -----------------------------------------------------------------
  {
    id: 'E11-200-http200',
    op: 'E11',
    resultCode: 200,
    http: 200,
    isValid: true,
    source: 'table',
    meaning: 'Range registered.',
    outcome: 'accepted',
    body: env(200, true, [CREATED_RANGE]),
  },
  {
    id: 'E11-400-http400',
    op: 'E11',
    resultCode: 400,
    http: 400,
    isValid: false,
    source: 'table',
    meaning: 'Invalid data, mismatched Nit, unknown company or duplicate range.',
    outcome: 'invalid',
    body: env(400, false, null, [
      'StartValue must not be greater than EndValue.',
      'ValidFrom must not be later than ValidTo.',
    ]),
  },
  {
    id: 'E11-403-http403',
    op: 'E11',
    resultCode: 403,
    http: 403,
    isValid: false,
    source: 'table',
    meaning: 'Invalid key for the company.',
    outcome: 'unauthorized',
    body: env(403, false, null, ['Invalid key for the company.']),
  },
  {
    id: 'E11-500-http500',
    op: 'E11',
    resultCode: 500,
    http: 500,
    isValid: false,
    source: 'table',
    meaning: 'Error saving.',
    outcome: 'transient',
    body: env(500, false, null, ['Error guardando.']),
  },
  // --- E12 -----------------------------------------------------------------
  {
    id: 'E12-200-http200',
    op: 'E12',
    resultCode: 200,
    http: 200,
    isValid: true,
    source: 'table',
    meaning: 'Query succeeded.',
    outcome: 'accepted',
    body: env(200, true, { data: [], page: 1, per_page: 20, total: 0, total_pages: 0 }),
  },
  {
    id: 'E12-401-http401',
    op: 'E12',
    resultCode: 401,
    http: 401,
    isValid: false,
    source: 'table',
    meaning: 'Authentication headers missing, or key invalid; ResultData null.',
    outcome: 'unauthorized',
    body: env(401, false, null, ['Invalid credentials.']),
  },
  {
    id: 'E12-500-http500-bad-date',
    op: 'E12',
    resultCode: 500,
    http: 500,
    isValid: false,
    source: 'table',
    meaning: 'Invalid date format; ResultData null.',
    outcome: 'invalid',
    body: env(500, false, null, [badDateMessage('2026/11/01', '2026-11-30')]),
  },
  {
    id: 'E12-500-http500-processing',
    op: 'E12',
    resultCode: 500,
    http: 500,
    isValid: false,
    source: 'table',
    meaning: 'Processing error; ResultData null.',
    outcome: 'transient',
    body: env(500, false, null, ['Error procesando la consulta.']),
  },

  // --- extra documented cases ------------------------------------------------
  {
    id: 'E12-framework-http400',
    op: 'E12',
    http: 400,
    source: 'extra',
    meaning: 'start_date or end_date missing: generic framework 400, body not an envelope.',
    outcome: 'invalid',
    body: {
      timestamp: '2026-11-22T03:00:00.000+00:00',
      status: 400,
      error: 'Bad Request',
      path: '/public/api/mail-receiver/v1/received-invoices',
    },
  },
  {
    id: 'E3-200-true',
    op: 'E3',
    http: 200,
    authorityStatus: 'true',
    source: 'extra',
    meaning: 'POS document accepted by the authority.',
    outcome: 'accepted',
    body: posRecord('true'),
  },
  {
    id: 'E3-200-false',
    op: 'E3',
    http: 200,
    authorityStatus: 'false',
    source: 'extra',
    meaning: 'POS document rejected by the authority; reasons in erroresAuthority.',
    outcome: 'rejected',
    body: posRecord('false', [
      'Regla: FAU04, Rechazo: El total no coincide con la suma de los detalles.',
    ]),
  },
  {
    id: 'E3-400-record',
    op: 'E3',
    http: 400,
    source: 'extra',
    meaning: 'POS 400 error record.',
    outcome: 'invalid',
    body: {
      status: 400,
      error: 'Bad Request',
      message: 'Validation failed',
      details: ['prefijo: is required'],
      correlationId: 'c0ffee-01',
    },
  },
  {
    id: 'E7-200-enabled',
    op: 'E7',
    http: 200,
    source: 'extra',
    meaning: 'POS commissioning: all requested accepted, habilitado true.',
    outcome: 'accepted',
    body: {
      companyId: 1001,
      solicitados: 1,
      aceptados: 1,
      rechazados: 0,
      habilitado: true,
      mensaje: 'Empresa habilitada.',
      detalle: ['POS1: ACEPTADO'],
    },
  },
  {
    id: 'E7-200-not-enabled',
    op: 'E7',
    http: 200,
    source: 'extra',
    meaning: 'POS commissioning: none accepted, habilitado false.',
    outcome: 'rejected',
    body: {
      companyId: 1001,
      solicitados: 1,
      aceptados: 0,
      rechazados: 1,
      habilitado: false,
      mensaje: 'Ningún documento fue aceptado.',
      detalle: ['POS1: RECHAZADO Regla: FAU04'],
    },
  },
  {
    id: 'E1-429-retry-after',
    op: 'E1',
    http: 429,
    source: 'extra',
    meaning: 'Rate limited (PRODUCT delivery rules): transient, Retry-After honoured.',
    outcome: 'transient',
    headers: { 'retry-after': '2' },
    retryAfterMs: 2000,
    body: 'Too Many Requests',
  },
  {
    id: 'E1-200-http200-regla90',
    op: 'E1',
    resultCode: 200,
    http: 200,
    isValid: false,
    source: 'extra',
    meaning: 'Rejected only for a repeated number: accepted the first time.',
    outcome: 'duplicate',
    body: env(200, false, 'Documento rechazado.', [REGLA_90]),
  },
  {
    id: 'E2-422-http200-regla90',
    op: 'E2',
    resultCode: 422,
    http: 200,
    isValid: false,
    source: 'extra',
    meaning: 'Payroll rejected only for a repeated number.',
    outcome: 'duplicate',
    body: env(422, false, 'Documento rechazado.', [REGLA_90]),
  },
  {
    id: 'E5-200-http200-regla90',
    op: 'E5',
    resultCode: 200,
    http: 200,
    isValid: false,
    source: 'extra',
    meaning: 'Support document rejected only for a repeated number.',
    outcome: 'duplicate',
    body: env(200, false, SUPPORT_REJECTED_MESSAGE, [REGLA_90]),
  },
  {
    id: 'E6-200-http200-regla90',
    op: 'E6',
    resultCode: 200,
    http: 200,
    isValid: false,
    source: 'extra',
    meaning: 'Adjustment note rejected only for a repeated number.',
    outcome: 'duplicate',
    body: env(200, false, SUPPORT_REJECTED_MESSAGE, [REGLA_90]),
  },
  // The spec's E5/E6 400 row names numbering among the data that do not allow issuing: a number
  // outside every current range of its prefix, or a prefix without a range of the document's type.
  ...(['E5', 'E6'] as const).flatMap((op): ResultCodeCase[] => {
    const [prefix, what] = op === 'E5' ? ['DS', 'documento soporte'] : ['NAS', 'notas de ajuste'];
    const outside = `El número ${prefix}5000000 no está dentro de un rango de numeración vigente de ${what} con prefijo ${prefix} para la empresa 1001.`;
    const noRange = `No hay una resolución de ${what} vigente con prefijo SETP para la empresa 1001.`;
    return [
      {
        id: `${op}-400-http200-number-outside-range`,
        op,
        resultCode: 400,
        http: 200,
        isValid: false,
        source: 'extra',
        meaning:
          'Numbering: the number is outside every current range of its prefix (a 400, not an authority rejection).',
        outcome: 'invalid',
        body: env(400, false, outside, [outside]),
      },
      {
        id: `${op}-400-http200-prefix-without-range`,
        op,
        resultCode: 400,
        http: 200,
        isValid: false,
        source: 'extra',
        meaning: 'Numbering: the prefix has no current range of this document type.',
        outcome: 'invalid',
        body: env(400, false, noRange, [noRange]),
      },
    ];
  }),
  {
    id: 'E3-200-false-regla90',
    op: 'E3',
    http: 200,
    authorityStatus: 'false',
    source: 'extra',
    meaning: 'POS document rejected only for a repeated number.',
    outcome: 'duplicate',
    body: posRecord('false', [REGLA_90]),
  },
];
