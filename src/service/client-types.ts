/**
 * Inputs and result of the service client (`client.ts`). Request bodies use
 * the wire schema types; the client does not validate them (validate/ does,
 * before anything is queued).
 */
import type { OperationId, PathForm, PosTipoInput } from './endpoints.js';
import type { MultipartFile } from './multipart.js';
import type { Outcome } from './outcome.js';
import type { PosDocumentContent, PosJsonRequest } from './schemas/index.js';

/** The credentials of one company, as configured. */
export interface ServiceCompany {
  /** Sent as `x-company-id` (and as E3's `companyId` / E7's `companyId` unless given). */
  id: number | string;
  /** Sent as `x-api-key`; never logged, never returned in a message. */
  apiKey: string;
  /** Sent as `x-user-id` (E2, E3) and `user-id` (E7) when known. */
  userId?: number | string;
}

export interface ServiceClientOptions {
  /** Base URL of the service; a path prefix is kept (`https://host/gateway`). */
  baseUrl: string;
  /**
   * Which documented path form to call where the spec gives two.
   * @defaultValue 'primary'
   */
  paths?: PathForm;
  /**
   * Connect, headers and body timeout, and the deadline of one whole call.
   * @defaultValue 30000
   */
  timeoutMs?: number;
  /**
   * Most keep-alive connections to the base URL; `null` for no cap of the client's own. The callers
   * bound their concurrency (each company's queue, the received-documents puller), and a fixed cap
   * shared by all companies would queue one company's requests behind another's inside undici.
   * @defaultValue null
   */
  connections?: number | null;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's path form for this call. */
  paths?: PathForm;
  /** Overrides the headers/body timeout and deadline for this call. */
  timeoutMs?: number;
}

/**
 * What an observer of the client sees of one call, after it ended: never the body, the headers or
 * the key. `httpStatus` is absent when no HTTP answer arrived.
 */
export interface CallRecord {
  op: OperationId;
  /** The company's id as sent in `x-company-id`. */
  companyId: string;
  httpStatus?: number;
  outcome: Outcome['kind'];
  /** Whole call, request built to answer read (or failure). */
  durationMs: number;
  /** The caller aborted it (shutdown): says nothing about the service. */
  aborted: boolean;
}

/** Told of every call the client made (metrics, whether the service answers). Must not throw. */
export type CallObserver = (call: CallRecord) => void;

export type ResponseHeaderMap = Record<string, string | string[] | undefined>;

export interface ServiceResponse {
  op: OperationId;
  outcome: Outcome;
  /** Undefined when no HTTP answer arrived (network failure, timeout, abort). */
  httpStatus?: number;
  headers: ResponseHeaderMap;
  /** Parsed JSON when the body is JSON, otherwise the raw text. */
  body: unknown;
  rawBody: string;
  durationMs: number;
}

export interface PosFileInput {
  /** Path parameter: pos | nota-ajuste-credito | nota-ajuste-debito | nota-ajuste. */
  tipo: PosTipoInput;
  file: MultipartFile;
  /** Defaults to the company's id. */
  companyId?: number;
  prefijo: string;
  numeroDocumento?: number;
  enviarCorreo?: boolean;
  /** POS extensions; sent as JSON text (structure not shown in the spec). */
  extensiones?: Record<string, unknown>;
}

/** E4 body; `jsonOriginal` may be given as the document object and is sent as JSON text. */
export type PosJsonInput = Omit<PosJsonRequest, 'jsonOriginal'> & {
  jsonOriginal?: string | PosDocumentContent;
};

export interface PosCommissioningInput {
  /** Defaults to the company's id. */
  companyId?: number;
  cantidad?: number;
  testId?: string;
}

export interface CommissioningInput {
  /** Sent as the `test-id` query parameter. */
  testId?: string;
}

export interface ListRangesInput {
  nit: string;
}

export interface ListReceivedInput {
  /** yyyy-MM-dd */
  startDate: string;
  /** yyyy-MM-dd, the whole day included. */
  endDate: string;
  page?: number;
  perPage?: number;
}
