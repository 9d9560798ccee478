/**
 * The service client: one typed method per operation (E1–E12), built from the
 * endpoint table, over one keep-alive undici Pool per base URL (service/transport.ts).
 *
 * It never throws on a business outcome or a network failure and never
 * retries: every call resolves to `{ outcome, httpStatus, headers, body,
 * rawBody, durationMs }` and the caller (submit/) decides what to do from
 * `outcome.kind`. The API key is scrubbed from everything it returns.
 */
import type { JsonText } from './json-text.js';
import { type OperationId } from './endpoints.js';
import { encodeMultipart } from './multipart.js';
import type {
  CallObserver,
  CallOptions,
  CommissioningInput,
  ListRangesInput,
  ListReceivedInput,
  PosCommissioningInput,
  PosFileInput,
  PosJsonInput,
  ServiceClientOptions,
  ServiceCompany,
  ServiceResponse,
} from './client-types.js';
import type {
  AdjustmentNoteRequest,
  CreateNumberingRequest,
  InvoiceRequest,
  PayrollRequest,
  SupportDocumentRequest,
} from './schemas/index.js';
import { ServiceTransport, type PreparedCall } from './transport.js';

export type * from './client-types.js';

export class ServiceClient {
  readonly baseUrl: string;
  private readonly transport: ServiceTransport;

  constructor(options: ServiceClientOptions) {
    this.transport = new ServiceTransport(options);
    this.baseUrl = options.baseUrl;
  }

  /** E1: invoice, credit note or debit note. */
  issueInvoice(
    company: ServiceCompany,
    request: InvoiceRequest | JsonText,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call('E1', company, { json: request }, options);
  }

  /** E2: payroll, adjustment note (TipoNota 1) or elimination note (TipoNota 2). */
  issuePayroll(
    company: ServiceCompany,
    request: PayrollRequest | JsonText,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call('E2', company, { json: request }, options);
  }

  /** E3: POS document from a file, as multipart/form-data. */
  issuePosFile(
    company: ServiceCompany,
    input: PosFileInput,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call(
      'E3',
      company,
      {
        path: { tipo: input.tipo },
        multipart: () =>
          encodeMultipart({
            file: input.file,
            companyId: input.companyId ?? String(company.id),
            prefijo: input.prefijo,
            numeroDocumento: input.numeroDocumento,
            enviarCorreo: input.enviarCorreo,
            extensiones:
              input.extensiones === undefined ? undefined : JSON.stringify(input.extensiones),
          }),
      },
      options,
    );
  }

  /** E4: POS document from a JSON body; an object `jsonOriginal` is sent as JSON text. */
  issuePosJson(
    company: ServiceCompany,
    input: PosJsonInput,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    const { jsonOriginal, ...rest } = input;
    const body =
      jsonOriginal === undefined
        ? rest
        : {
            ...rest,
            jsonOriginal:
              typeof jsonOriginal === 'string' ? jsonOriginal : JSON.stringify(jsonOriginal),
          };
    return this.call('E4', company, { json: body }, options);
  }

  /** E5: support document. */
  issueSupportDocument(
    company: ServiceCompany,
    request: SupportDocumentRequest | JsonText,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call('E5', company, { json: request }, options);
  }

  /** E6: adjustment note on a support document. */
  issueAdjustmentNote(
    company: ServiceCompany,
    request: AdjustmentNoteRequest | JsonText,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call('E6', company, { json: request }, options);
  }

  /** E7: POS commissioning (query companyId, cantidad, testId; header user-id). */
  commissionPos(
    company: ServiceCompany,
    input: PosCommissioningInput = {},
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    const query = {
      companyId: input.companyId ?? company.id,
      cantidad: input.cantidad,
      testId: input.testId,
    };
    return this.call('E7', company, { query }, options);
  }

  /** E8: invoice commissioning; no body (the spec calls it unnecessary). */
  commissionInvoice(
    company: ServiceCompany,
    input: CommissioningInput = {},
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call('E8', company, { query: { 'test-id': input.testId } }, options);
  }

  /** E9: payroll commissioning; no body. */
  commissionPayroll(
    company: ServiceCompany,
    input: CommissioningInput = {},
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call('E9', company, { query: { 'test-id': input.testId } }, options);
  }

  /** E10: numbering ranges of the company by tax id. */
  listRanges(
    company: ServiceCompany,
    input: ListRangesInput,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call('E10', company, { query: { nit: input.nit } }, options);
  }

  /** E11: save a numbering range. */
  createRange(
    company: ServiceCompany,
    request: CreateNumberingRequest,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    return this.call('E11', company, { json: request }, options);
  }

  /** E12: one page of received documents. */
  listReceived(
    company: ServiceCompany,
    input: ListReceivedInput,
    options?: CallOptions,
  ): Promise<ServiceResponse> {
    const query = {
      start_date: input.startDate,
      end_date: input.endDate,
      page: input.page,
      per_page: input.perPage,
    };
    return this.call('E12', company, { query }, options);
  }

  /** Tells `observer` of every call from now on (after it ended); returns the function that stops it. */
  observe(observer: CallObserver): () => void {
    return this.transport.observe(observer);
  }

  /** Closes the pool; safe to call more than once. Calls made afterwards answer a transient outcome. */
  close(): Promise<void> {
    return this.transport.close();
  }

  private call(
    op: OperationId,
    company: ServiceCompany,
    prepared: PreparedCall,
    options: CallOptions = {},
  ): Promise<ServiceResponse> {
    return this.transport.call(op, company, prepared, options);
  }
}
