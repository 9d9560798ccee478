/**
 * The endpoint table of the service spec (E1–E12): method, primary path, the
 * documented alias path, the headers each operation names, the query
 * parameters and the response style. The client builds requests from it and
 * the emulator routes every path and alias from it, so both read the spec from
 * one place.
 *
 * E13 ("Register transactions by date") is deliberately absent: the spec says
 * a GET operation of that name exists but shows neither its path, its
 * parameters nor its response, so there is nothing to call or to emulate.
 * `E13_NOTE` records that decision for callers that list operations.
 */

export type OperationId =
  'E1' | 'E2' | 'E3' | 'E4' | 'E5' | 'E6' | 'E7' | 'E8' | 'E9' | 'E10' | 'E11' | 'E12';

export type HttpMethod = 'GET' | 'POST';

/** How the operation answers: the common envelope, the POS record, the POS commissioning record, or not shown. */
export type ResponseStyle = 'envelope' | 'pos-record' | 'commissioning-record' | 'unknown';

/** Header names exactly as the spec writes them. */
export type HeaderName = 'x-api-key' | 'x-company-id' | 'x-user-id' | 'user-id';

export type PathForm = 'primary' | 'alias';

/** How the request body travels. `optional-json` = E8/E9, where a body is allowed but unnecessary. */
export type BodyKind = 'json' | 'multipart' | 'optional-json' | 'none';

export interface EndpointDef {
  readonly id: OperationId;
  readonly name: string;
  readonly method: HttpMethod;
  /** Primary path; `{tipo}` is a path parameter (E3 only). */
  readonly primary: string;
  /** The alias path the spec also documents, when there is one. */
  readonly alias?: string;
  readonly headers: {
    readonly required: readonly HeaderName[];
    readonly optional: readonly HeaderName[];
  };
  readonly query: { readonly required: readonly string[]; readonly optional: readonly string[] };
  readonly body: BodyKind;
  readonly style: ResponseStyle;
}

/** Values of E3's `{tipo}` path parameter (and of E4's `tipoFactura`). */
export const POS_TIPOS = ['pos', 'nota-ajuste-credito', 'nota-ajuste-debito'] as const;
export type PosTipo = (typeof POS_TIPOS)[number];
/** `nota-ajuste` is documented as an alias of `nota-ajuste-credito`. */
export const POS_TIPO_ALIASES = { 'nota-ajuste': 'nota-ajuste-credito' } as const;
export type PosTipoInput = PosTipo | keyof typeof POS_TIPO_ALIASES;

export function isPosTipo(value: string): value is PosTipoInput {
  return (POS_TIPOS as readonly string[]).includes(value) || value in POS_TIPO_ALIASES;
}

/** The canonical tipo for a documented value or alias; undefined for anything else. */
export function canonicalPosTipo(value: string): PosTipo | undefined {
  if ((POS_TIPOS as readonly string[]).includes(value)) return value as PosTipo;
  if (value === 'nota-ajuste') return POS_TIPO_ALIASES['nota-ajuste'];
  return undefined;
}

const KEY_AND_COMPANY: readonly HeaderName[] = ['x-api-key', 'x-company-id'];
const NONE: readonly string[] = [];

interface EndpointSpec {
  method?: HttpMethod;
  primary: string;
  alias?: string;
  headers?: Partial<EndpointDef['headers']>;
  query?: Partial<EndpointDef['query']>;
  body?: BodyKind;
  style?: ResponseStyle;
}

/**
 * One row of the table. What most operations share is the default, so a row
 * shows only where an operation differs: POST, `x-api-key` and `x-company-id`
 * required and no other header, no query parameters, a JSON body, the common
 * envelope.
 */
function endpoint(id: OperationId, name: string, spec: EndpointSpec): EndpointDef {
  return {
    id,
    name,
    method: spec.method ?? 'POST',
    primary: spec.primary,
    ...(spec.alias === undefined ? {} : { alias: spec.alias }),
    headers: {
      required: spec.headers?.required ?? KEY_AND_COMPANY,
      optional: spec.headers?.optional ?? [],
    },
    query: { required: spec.query?.required ?? NONE, optional: spec.query?.optional ?? NONE },
    body: spec.body ?? 'json',
    style: spec.style ?? 'envelope',
  };
}

export const ENDPOINTS: Readonly<Record<OperationId, EndpointDef>> = Object.freeze({
  E1: endpoint('E1', 'Issue invoice, credit note or debit note', {
    primary: '/svcOrchestratorController/v1/process-invoice',
  }),
  E2: endpoint('E2', 'Issue payroll document', {
    primary: '/public/api/nomina/v1/payroll-xml-controller/process',
    alias: '/api/externalPayrollController/process',
    headers: { required: ['x-api-key', 'x-company-id', 'x-user-id'] },
  }),
  E3: endpoint('E3', 'Issue POS document from a file', {
    primary: '/api/pos/documents/{tipo}',
    headers: { required: [], optional: ['x-user-id'] },
    body: 'multipart',
    style: 'pos-record',
  }),
  E4: endpoint('E4', 'Issue POS document from a JSON body', {
    primary: '/api/pos/documents/send-public-key',
    headers: { required: ['x-api-key'] },
    style: 'unknown',
  }),
  E5: endpoint('E5', 'Issue support document', {
    primary: '/svcGeneratorDSController/v1/process-support-document',
  }),
  E6: endpoint('E6', 'Issue adjustment note on a support document', {
    primary: '/svcGeneratorDSController/v1/process-adjustment-note',
  }),
  // The spec only says the `user-id` header "appears in use": it is sent when known, never required.
  E7: endpoint('E7', 'Run POS commissioning', {
    primary: '/api/pos/habilitacion',
    headers: { required: [], optional: ['user-id'] },
    query: { required: ['companyId'], optional: ['cantidad', 'testId'] },
    body: 'none',
    style: 'commissioning-record',
  }),
  E8: endpoint('E8', 'Run invoice commissioning', {
    primary: '/HabAuthorityTest/process-hab',
    query: { optional: ['test-id'] },
    body: 'optional-json',
  }),
  E9: endpoint('E9', 'Run payroll commissioning', {
    primary: '/svcHabNominaController/process-hab',
    alias: '/public/api/nomina/v1/hab-nomina-controller/send-nomina-hab',
    query: { optional: ['test-id'] },
    body: 'optional-json',
  }),
  E10: endpoint('E10', 'List numbering ranges by tax id', {
    method: 'GET',
    primary: '/public/api/numeraciones/v1/by-nit',
    alias: '/public/api/numeraciones/by-nit',
    query: { required: ['nit'] },
    body: 'none',
  }),
  E11: endpoint('E11', 'Save a numbering range', {
    primary: '/public/api/numeraciones/v1/create',
    alias: '/public/api/numeraciones/create',
  }),
  E12: endpoint('E12', 'List received documents', {
    method: 'GET',
    primary: '/public/api/mail-receiver/v1/received-invoices',
    alias: '/public/svcMailReceiver/received-invoices',
    query: { required: ['start_date', 'end_date'], optional: ['page', 'per_page'] },
    body: 'none',
  }),
});

export const OPERATION_IDS: readonly OperationId[] = Object.freeze(
  Object.keys(ENDPOINTS) as OperationId[],
);

export function isOperationId(value: string): value is OperationId {
  return Object.prototype.hasOwnProperty.call(ENDPOINTS, value);
}

/**
 * E13 is not implemented: the spec documents only its name and method (GET);
 * path, parameters and response are "not shown". Calling it would mean
 * guessing a URL, so neither the client nor the emulator offers it.
 */
export const E13_NOTE = Object.freeze({
  id: 'E13',
  name: 'Register transactions by date',
  method: 'GET',
  implemented: false,
  reason:
    'The spec shows no path, parameters or response for E13; it cannot be called or emulated.',
  errorCode: 'EDOC_SERVICE_NOT_IMPLEMENTED',
} as const);

export interface PathParams {
  /** E3 only: pos | nota-ajuste-credito | nota-ajuste-debito | nota-ajuste. Defaults to `pos`. */
  tipo?: string;
}

/**
 * The path of an operation in its primary or alias form. The alias form falls
 * back to the primary path when the spec documents no alias. For E3 `tipo` is
 * checked against the documented values (the `nota-ajuste` alias is kept as
 * given, since the service accepts it on the wire).
 */
export function pathFor(
  op: OperationId,
  form: PathForm = 'primary',
  params: PathParams = {},
): string {
  const def = ENDPOINTS[op];
  const template = form === 'alias' && def.alias !== undefined ? def.alias : def.primary;
  if (!template.includes('{tipo}')) return template;
  const tipo = params.tipo ?? 'pos';
  if (!isPosTipo(tipo)) {
    throw new RangeError(
      `E3 tipo must be one of ${[...POS_TIPOS, 'nota-ajuste'].join(', ')}; got '${tipo}'`,
    );
  }
  return template.replace('{tipo}', tipo);
}

export interface EndpointMatch {
  op: OperationId;
  form: PathForm;
  params: { tipo?: PosTipo; tipoAsSent?: string };
}

/**
 * Which operation a method + pathname (no query string) addresses, in which
 * form. Used by the emulator to route. E3's fixed sibling
 * `/api/pos/documents/send-public-key` is E4, so literal paths win over the
 * `{tipo}` template. Unknown tipo values do not match.
 */
export function matchEndpoint(method: string, pathname: string): EndpointMatch | undefined {
  const m = method.toUpperCase();
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  for (const op of OPERATION_IDS) {
    const def = ENDPOINTS[op];
    if (def.method !== m) continue;
    if (def.primary === path) return { op, form: 'primary', params: {} };
    if (def.alias === path) return { op, form: 'alias', params: {} };
  }
  const e3 = ENDPOINTS.E3;
  const prefix = e3.primary.slice(0, e3.primary.indexOf('{tipo}'));
  if (m === e3.method && path.startsWith(prefix)) {
    const tipoAsSent = path.slice(prefix.length);
    const tipo = canonicalPosTipo(tipoAsSent);
    if (tipo !== undefined) return { op: 'E3', form: 'primary', params: { tipo, tipoAsSent } };
  }
  return undefined;
}
