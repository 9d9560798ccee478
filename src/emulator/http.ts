/** The request context and reply shapes shared by the router and the handlers, plus envelope helpers. */
import type { IncomingHttpHeaders } from 'node:http';
import type { OperationId, PosTipo } from '../service/endpoints.js';

export interface EmulatorRequest {
  op: OperationId;
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  params: { tipo?: PosTipo; tipoAsSent?: string };
  /** Raw body text (JSON operations); empty string when none was sent. */
  text: string;
  /** E3: the parsed multipart form, or the reason it could not be parsed. */
  form?: FormData;
  formError?: string;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface Envelope {
  Errors: string[];
  IsValid: boolean;
  ResultCode: number;
  Warning: string[];
  ResultData: unknown;
}

export function envelope(
  resultCode: number,
  isValid: boolean,
  resultData: unknown,
  errors: string[] = [],
  warnings: string[] = [],
): Envelope {
  return {
    Errors: errors,
    IsValid: isValid,
    ResultCode: resultCode,
    Warning: warnings,
    ResultData: resultData,
  };
}

/** A reply carrying the envelope. */
export function envelopeReply(
  status: number,
  resultCode: number,
  isValid: boolean,
  resultData: unknown,
  errors: string[] = [],
  warnings: string[] = [],
): Reply {
  return { status, body: envelope(resultCode, isValid, resultData, errors, warnings) };
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) return value[0];
  return value === undefined || value === '' ? undefined : value;
}

/** A strictly positive decimal integer, or undefined. */
export function parseIntStrict(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJson(text: string): JsonParse {
  if (text.trim() === '')
    return { ok: false, message: 'El cuerpo de la solicitud es obligatorio.' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return {
      ok: false,
      message: `El cuerpo de la solicitud no es JSON válido: ${(err as Error).message}`,
    };
  }
}

/** zod issues as `path: message` lines (the service's per-field messages). */
export function issueMessages(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): string[] {
  return issues.map(
    (i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(cuerpo)'}: ${i.message}`,
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
