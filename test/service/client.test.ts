import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ServiceClient,
  type CallOptions,
  type ServiceCompany,
  type ServiceResponse,
} from '../../src/service/client.js';
import { JsonText } from '../../src/service/json-text.js';
import { ENDPOINTS, type OperationId, type PathForm } from '../../src/service/endpoints.js';
import type {
  AdjustmentNoteRequest,
  CreateNumberingRequest,
  InvoiceRequest,
  PayrollRequest,
  SupportDocumentRequest,
} from '../../src/service/schemas/index.js';
import { RESULT_CODE_CASES } from '../cases/result-codes.js';

interface Recorded {
  method: string;
  pathname: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  remotePort: number | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse, rec: Recorded) => void;

const API_KEY = 'k-9f1c2e7d-secret-api-key';
const COMPANY: ServiceCompany = { id: 1001, apiKey: API_KEY, userId: 77 };
const ACCEPTED = {
  Errors: [],
  IsValid: true,
  ResultCode: 200,
  Warning: [],
  ResultData: 'Procesado Correctamente.',
};

let server: Server;
let baseUrl: string;
let recorded: Recorded[] = [];
let handler: Handler;
const clients: ServiceClient[] = [];

function answerJson(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

function newClient(
  options: { paths?: PathForm; timeoutMs?: number; baseUrl?: string } = {},
): ServiceClient {
  const client = new ServiceClient({
    baseUrl: options.baseUrl ?? baseUrl,
    paths: options.paths ?? 'primary',
    timeoutMs: options.timeoutMs ?? 5000,
  });
  clients.push(client);
  return client;
}

/** Sample bodies: the client sends them as given (validation happens before it), so shapes are kept small. */
function sample<T>(value: Record<string, unknown>): T {
  return value as T;
}

const INVOICE = sample<InvoiceRequest>({
  SeriePrefix: 'SETP',
  SerieNumber: '990001',
  Currency: 'COP',
  ReasonCredit: '',
});
const PAYROLL = sample<PayrollRequest>({
  TipoNota: '',
  NumeroSecuenciaXML: { Prefijo: 'NE', Consecutivo: '15' },
});
const SUPPORT = sample<SupportDocumentRequest>({
  Currency: 'COP',
  IssueDate: '2026-11-21T10:00:00',
});
const NOTE = sample<AdjustmentNoteRequest>({ DocumentReferences: [{ DocumentReferred: 'DS17' }] });
const RANGE = sample<CreateNumberingRequest>({
  Prefix: 'SETP',
  AuthorizationNumber: '18760000001',
  ValidFrom: '2026-01-01T00:00:00',
  ValidTo: '2027-01-01T00:00:00',
  StartValue: 1,
  EndValue: 5000,
  DocumentType: 'Invoice',
});
const POS_CONTENT = '{"documento":{"prefijo":"POS","numeroDocumento":"17"}}';

interface OperationCall {
  call: (client: ServiceClient, options?: CallOptions) => Promise<ServiceResponse>;
  /** JSON body the server must receive, or 'none'. */
  json: unknown;
  query: Record<string, string>;
  contentType: 'json' | 'multipart' | 'none';
  /** Headers the server must receive, with their values. */
  sent: Record<string, string>;
}

const KEY_AND_COMPANY = { 'x-api-key': API_KEY, 'x-company-id': '1001' };

const CALLS: Record<OperationId, OperationCall> = {
  E1: {
    call: (c, o) => c.issueInvoice(COMPANY, INVOICE, o),
    json: INVOICE,
    query: {},
    contentType: 'json',
    sent: KEY_AND_COMPANY,
  },
  E2: {
    call: (c, o) => c.issuePayroll(COMPANY, PAYROLL, o),
    json: PAYROLL,
    query: {},
    contentType: 'json',
    sent: { ...KEY_AND_COMPANY, 'x-user-id': '77' },
  },
  E3: {
    call: (c, o) =>
      c.issuePosFile(COMPANY, { tipo: 'pos', prefijo: 'POS', file: { content: POS_CONTENT } }, o),
    json: 'none',
    query: {},
    contentType: 'multipart',
    sent: { 'x-user-id': '77' },
  },
  E4: {
    call: (c, o) =>
      c.issuePosJson(
        COMPANY,
        {
          companyId: 1001,
          prefijo: 'POS',
          tipoFactura: 'pos',
          enviarCorreo: false,
          numero: 17,
          jsonOriginal: JSON.parse(POS_CONTENT) as Record<string, never>,
        },
        o,
      ),
    json: {
      companyId: 1001,
      prefijo: 'POS',
      tipoFactura: 'pos',
      enviarCorreo: false,
      numero: 17,
      jsonOriginal: POS_CONTENT,
    },
    query: {},
    contentType: 'json',
    sent: { 'x-api-key': API_KEY },
  },
  E5: {
    call: (c, o) => c.issueSupportDocument(COMPANY, SUPPORT, o),
    json: SUPPORT,
    query: {},
    contentType: 'json',
    sent: KEY_AND_COMPANY,
  },
  E6: {
    call: (c, o) => c.issueAdjustmentNote(COMPANY, NOTE, o),
    json: NOTE,
    query: {},
    contentType: 'json',
    sent: KEY_AND_COMPANY,
  },
  E7: {
    call: (c, o) => c.commissionPos(COMPANY, { cantidad: 3, testId: 'T-POS-1' }, o),
    json: 'none',
    query: { companyId: '1001', cantidad: '3', testId: 'T-POS-1' },
    contentType: 'none',
    sent: { 'user-id': '77' },
  },
  E8: {
    call: (c, o) => c.commissionInvoice(COMPANY, { testId: 'T-INV-1' }, o),
    json: 'none',
    query: { 'test-id': 'T-INV-1' },
    contentType: 'none',
    sent: KEY_AND_COMPANY,
  },
  E9: {
    call: (c, o) => c.commissionPayroll(COMPANY, { testId: 'T-NOM-1' }, o),
    json: 'none',
    query: { 'test-id': 'T-NOM-1' },
    contentType: 'none',
    sent: KEY_AND_COMPANY,
  },
  E10: {
    call: (c, o) => c.listRanges(COMPANY, { nit: '900123456' }, o),
    json: 'none',
    query: { nit: '900123456' },
    contentType: 'none',
    sent: KEY_AND_COMPANY,
  },
  E11: {
    call: (c, o) => c.createRange(COMPANY, RANGE, o),
    json: RANGE,
    query: {},
    contentType: 'json',
    sent: KEY_AND_COMPANY,
  },
  E12: {
    call: (c, o) =>
      c.listReceived(
        COMPANY,
        { startDate: '2026-11-01', endDate: '2026-11-21', page: 2, perPage: 50 },
        o,
      ),
    json: 'none',
    query: { start_date: '2026-11-01', end_date: '2026-11-21', page: '2', per_page: '50' },
    contentType: 'none',
    sent: KEY_AND_COMPANY,
  },
};

const CREDENTIAL_HEADERS = ['x-api-key', 'x-company-id', 'x-user-id', 'user-id'];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const rec: Recorded = {
        method: req.method ?? '',
        pathname: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
        remotePort: req.socket.remotePort,
      };
      recorded.push(rec);
      handler(req, res, rec);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  recorded = [];
  handler = answerJson(200, ACCEPTED);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

handler = answerJson(200, ACCEPTED);

async function formOf(rec: Recorded): Promise<FormData> {
  const request = new Request(`http://127.0.0.1${rec.pathname}`, {
    method: rec.method,
    headers: { 'content-type': String(rec.headers['content-type']) },
    body: rec.body,
  });
  return request.formData();
}

const OPS = Object.keys(CALLS) as OperationId[];
const FORMS: PathForm[] = ['primary', 'alias'];

describe('ServiceClient requests, per operation and path form', () => {
  it.each(OPS.flatMap((op) => FORMS.map((form) => [op, form] as const)))(
    '%s %s: method, path, headers, query and body as the spec names them',
    async (op, form) => {
      const def = ENDPOINTS[op];
      const expected = CALLS[op];
      const result = await expected.call(newClient({ paths: form }));
      expect(result.outcome.kind).toBe('accepted');
      expect(recorded).toHaveLength(1);
      const [rec] = recorded;
      expect(rec.method).toBe(def.method);
      const template = form === 'alias' && def.alias !== undefined ? def.alias : def.primary;
      expect(rec.pathname).toBe(template.replace('{tipo}', 'pos'));

      for (const [name, value] of Object.entries(expected.sent))
        expect(rec.headers[name]).toBe(value);
      for (const name of CREDENTIAL_HEADERS.filter((h) => !(h in expected.sent)))
        expect(rec.headers[name]).toBeUndefined();

      expect(Object.fromEntries(rec.query)).toEqual(expected.query);
      if (expected.contentType === 'json') {
        expect(rec.headers['content-type']).toBe('application/json');
        expect(JSON.parse(rec.body.toString('utf8'))).toEqual(expected.json);
      } else if (expected.contentType === 'multipart') {
        expect(rec.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      } else {
        expect(rec.headers['content-type']).toBeUndefined();
        expect(rec.body.length).toBe(0);
      }
    },
  );

  it('a JsonText body is sent byte for byte as given (the ledger hands out only texts JSON.stringify would write)', async () => {
    const text = '{"SeriePrefix":"SETP","SerieNumber":"990000001","Description":"ñandú"}';
    const result = await newClient().issueInvoice(COMPANY, new JsonText(text));
    expect(result.outcome.kind).toBe('accepted');
    expect(recorded[0].headers['content-type']).toBe('application/json');
    expect(recorded[0].body.toString('utf8')).toBe(text);
  });

  it('E2, E9, E10, E11 and E12 go to different paths in alias form; the others fall back to the primary path', () => {
    const withAlias = OPS.filter((op) => ENDPOINTS[op].alias !== undefined);
    expect(withAlias).toEqual(['E2', 'E9', 'E10', 'E11', 'E12']);
  });

  it('E3 sends file, companyId, prefijo and the optional fields as multipart form fields', async () => {
    const client = newClient();
    await client.issuePosFile(COMPANY, {
      tipo: 'nota-ajuste',
      prefijo: 'NC',
      numeroDocumento: 42,
      enviarCorreo: true,
      extensiones: { sucursal: 'Norte' },
      file: { content: POS_CONTENT, filename: 'nc-42.json' },
    });
    const [rec] = recorded;
    expect(rec.pathname).toBe('/api/pos/documents/nota-ajuste');
    const form = await formOf(rec);
    const file = form.get('file');
    expect(file).toBeInstanceOf(Blob);
    expect((file as File).name).toBe('nc-42.json');
    expect(await (file as File).text()).toBe(POS_CONTENT);
    expect(form.get('companyId')).toBe('1001');
    expect(form.get('prefijo')).toBe('NC');
    expect(form.get('numeroDocumento')).toBe('42');
    expect(form.get('enviarCorreo')).toBe('true');
    expect(JSON.parse(String(form.get('extensiones')))).toEqual({ sucursal: 'Norte' });
    expect(Number(rec.headers['content-length'])).toBe(rec.body.length);
  });

  it('E3 leaves the optional form fields out when not given, and tipo nota-ajuste-debito reaches its path', async () => {
    await newClient().issuePosFile(
      { id: 5, apiKey: API_KEY },
      {
        tipo: 'nota-ajuste-debito',
        prefijo: 'ND',
        companyId: 5,
        file: { content: new TextEncoder().encode(POS_CONTENT) },
      },
    );
    const [rec] = recorded;
    expect(rec.pathname).toBe('/api/pos/documents/nota-ajuste-debito');
    expect(rec.headers['x-user-id']).toBeUndefined();
    const form = await formOf(rec);
    expect([...form.keys()].sort()).toEqual(['companyId', 'file', 'prefijo']);
    expect(form.get('companyId')).toBe('5');
  });

  it('E3 with an undocumented tipo answers invalid without sending anything', async () => {
    const result = await newClient().issuePosFile(COMPANY, {
      tipo: 'factura' as 'pos',
      prefijo: 'P',
      file: { content: '{}' },
    });
    expect(result.outcome.kind).toBe('invalid');
    expect(result.httpStatus).toBeUndefined();
    expect(recorded).toHaveLength(0);
  });

  it('E7 sends companyId from the company and leaves cantidad and testId out when not given; E12 without page', async () => {
    const client = newClient();
    await client.commissionPos({ id: 33, apiKey: API_KEY });
    await client.listReceived(COMPANY, { startDate: '2026-11-01', endDate: '2026-11-02' });
    await client.commissionInvoice(COMPANY);
    expect(Object.fromEntries(recorded[0].query)).toEqual({ companyId: '33' });
    expect(recorded[0].headers['user-id']).toBeUndefined();
    expect(Object.fromEntries(recorded[1].query)).toEqual({
      start_date: '2026-11-01',
      end_date: '2026-11-02',
    });
    expect(recorded[2].query.size).toBe(0);
  });

  it('keeps a path prefix of the base URL and reuses one keep-alive connection', async () => {
    const client = newClient({ baseUrl: `${baseUrl}/gateway/` });
    await client.listRanges(COMPANY, { nit: '900123456' });
    // let the pool see the first connection free again before the next dispatch
    await new Promise((resolve) => setTimeout(resolve, 20));
    await client.listRanges(COMPANY, { nit: '900123456' });
    expect(recorded.map((r) => r.pathname)).toEqual([
      '/gateway/public/api/numeraciones/v1/by-nit',
      '/gateway/public/api/numeraciones/v1/by-nit',
    ]);
    expect(recorded[1].remotePort).toBe(recorded[0].remotePort);
  });
});

describe('ServiceClient responses', () => {
  it.each(RESULT_CODE_CASES.map((c) => [c.id, c] as const))(
    '%s over HTTP gives the same outcome as the table',
    async (_id, c) => {
      handler = (_req, res) => {
        const text = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
        res.writeHead(c.http, {
          'content-type': typeof c.body === 'string' ? 'text/plain' : 'application/json',
          ...c.headers,
        });
        res.end(text);
      };
      const result = await CALLS[c.op].call(newClient());
      expect(result.httpStatus).toBe(c.http);
      expect(result.outcome.kind).toBe(c.outcome);
      if (c.resultCode !== undefined) expect(result.outcome.resultCode).toBe(c.resultCode);
      if (c.retryAfterMs !== undefined) expect(result.outcome.retryAfterMs).toBe(c.retryAfterMs);
      expect(result.body).toEqual(c.body);
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
    },
  );

  it('a socket destroyed before answering is transient with no HTTP status', async () => {
    handler = (req) => req.socket.destroy();
    const result = await newClient().issueInvoice(COMPANY, INVOICE);
    expect(result.outcome.kind).toBe('transient');
    expect(result.httpStatus).toBeUndefined();
    expect(result.outcome.errorCode).toMatch(/^(UND_ERR_SOCKET|ECONNRESET)$/);
    expect(result.outcome.messages[0]).toContain(result.outcome.errorCode);
  });

  it('a server slower than timeoutMs is transient, and the call ends near the timeout', async () => {
    handler = (_req, res) => {
      setTimeout(() => {
        if (!res.destroyed) answerJson(200, ACCEPTED)(_req, res, recorded[0]);
      }, 2000);
    };
    const result = await newClient({ timeoutMs: 300 }).listRanges(COMPANY, { nit: '1' });
    expect(result.outcome.kind).toBe('transient');
    expect(result.httpStatus).toBeUndefined();
    expect(result.outcome.delivery).toBe('maybe-sent');
    expect(result.durationMs).toBeLessThan(1500);
  });

  it('calls started together share a deadline: the slow one ends near its timeout, the quick ones answer', async () => {
    handler = (req, res, rec) => {
      if (rec.pathname.includes('numbering') || rec.query.has('nit')) return; // never answered
      answerJson(200, ACCEPTED)(req, res, rec);
    };
    const client = newClient({ timeoutMs: 400 });
    const started = Date.now();
    const [slow, ...quick] = await Promise.all([
      client.listRanges(COMPANY, { nit: '1' }),
      ...Array.from({ length: 5 }, () => client.issueInvoice(COMPANY, INVOICE)),
    ]);
    for (const q of quick) expect(q.httpStatus).toBe(200);
    expect(slow.outcome).toMatchObject({ kind: 'transient', delivery: 'maybe-sent' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(slow.durationMs).toBeLessThan(2000);
  });

  it('HTTP 429 with Retry-After: 2 is transient with retryAfterMs 2000', async () => {
    handler = answerJson(429, 'Too Many Requests', { 'retry-after': '2' });
    const result = await newClient().issueSupportDocument(COMPANY, SUPPORT);
    expect(result.outcome).toMatchObject({ kind: 'transient', retryAfterMs: 2000 });
    expect(result.headers['retry-after']).toBe('2');
    expect(result.rawBody).toBe('Too Many Requests');
  });

  it('a refused connection is transient and marked not sent', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await newClient({ baseUrl: `http://127.0.0.1:${port}` }).issueInvoice(
      COMPANY,
      INVOICE,
    );
    expect(result.outcome).toMatchObject({
      kind: 'transient',
      errorCode: 'ECONNREFUSED',
      delivery: 'not-sent',
    });
  });

  it('a key holding U+200B is refused by the HTTP client: invalid and never sent, nothing reaches the server, the key in no message', async () => {
    handler = answerJson(200, ACCEPTED);
    recorded = [];
    const invisible: ServiceCompany = {
      ...COMPANY,
      apiKey: `${API_KEY.slice(0, 8)}\u200b${API_KEY.slice(8)}`,
    };
    const result = await newClient().issueInvoice(invisible, INVOICE);
    expect(result.httpStatus).toBeUndefined();
    expect(result.outcome).toMatchObject({
      kind: 'invalid',
      delivery: 'not-sent',
      errorCode: 'UND_ERR_INVALID_ARG',
    });
    expect(result.outcome.messages[0]).toMatch(/never sent.*nothing reached the service/);
    expect(JSON.stringify(result.outcome)).not.toContain(API_KEY.slice(8));
    expect(recorded).toHaveLength(0);
  });

  it('an AbortSignal ends the call as transient; an already aborted signal sends nothing', async () => {
    handler = () => undefined;
    const controller = new AbortController();
    const pending = newClient().issuePayroll(COMPANY, PAYROLL, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await pending).outcome).toMatchObject({ kind: 'transient', errorCode: 'ABORT_ERR' });
    recorded = [];
    const result = await newClient().issuePayroll(COMPANY, PAYROLL, {
      signal: AbortSignal.abort(),
    });
    expect(result.outcome.kind).toBe('transient');
    expect(recorded).toHaveLength(0);
  });

  it('the API key appears in no returned message, reason, raw text or body, even when the server echoes it', async () => {
    const echo = {
      Errors: [`Key ${API_KEY} does not correspond to company 1001`],
      IsValid: false,
      ResultCode: 401,
      Warning: [API_KEY],
      ResultData: null,
    };
    handler = answerJson(200, echo);
    const client = newClient();
    const envelope = await client.issueInvoice(COMPANY, INVOICE);
    expect(envelope.outcome.kind).toBe('unauthorized');
    handler = answerJson(400, `bad key ${API_KEY}`);
    const text = await client.issueInvoice(COMPANY, INVOICE);
    expect(text.outcome.kind).toBe('invalid');
    handler = (req) => req.socket.destroy();
    const network = await client.issueInvoice(COMPANY, INVOICE);
    for (const result of [envelope, text, network]) {
      expect(JSON.stringify(result)).not.toContain(API_KEY);
    }
    expect(envelope.outcome.messages[0]).toContain('[redacted]');
  });

  it('close() can be called twice; a call after close is transient, never a throw', async () => {
    const client = newClient();
    await client.listRanges(COMPANY, { nit: '1' });
    await client.close();
    await client.close();
    const result = await client.listRanges(COMPANY, { nit: '1' });
    expect(result.outcome.kind).toBe('transient');
    expect(recorded).toHaveLength(1);
  });
});
