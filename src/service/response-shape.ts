/**
 * Reads a response body into one of the spec's documented shapes — common
 * envelope, POS document record, POS commissioning record, POS/framework error
 * record — or `other`. Deliberately lenient (string ResultCode, `Warnings` for
 * `Warning`, missing lists): the outcome must still be decided when the
 * service drifts a little; strict validation belongs to the wire schemas.
 */

export type BodyShape =
  | {
      type: 'envelope';
      resultCode?: number;
      isValid?: boolean;
      resultData: unknown;
      messages: string[];
      warnings: string[];
    }
  | {
      type: 'pos-record';
      authorityStatus?: 'true' | 'false';
      messages: string[];
      warnings: string[];
    }
  | { type: 'commissioning'; habilitado: boolean; messages: string[]; warnings: string[] }
  | { type: 'error-record'; status?: number; raw: string; messages: string[]; warnings: string[] }
  | { type: 'other'; raw: string; messages: string[]; warnings: string[] };

const RAW_LIMIT = 2000;
const MESSAGE_LIMIT = 500;

export function readShape(body: unknown): BodyShape {
  const value = typeof body === 'string' ? parseJsonText(body) : body;
  if (isRecord(value)) {
    const envelope = readEnvelope(value);
    if (envelope !== undefined) return envelope;
    if ('authorityStatus' in value) return readPosRecord(value);
    if (typeof value.habilitado === 'boolean') return readCommissioning(value, value.habilitado);
    if (
      typeof value.status === 'number' &&
      (typeof value.error === 'string' || typeof value.message === 'string')
    ) {
      return readErrorRecord(value, value.status, rawText(body));
    }
  }
  const raw = rawText(body);
  const trimmed = raw.trim();
  return {
    type: 'other',
    raw,
    messages: trimmed === '' ? [] : [trimmed.slice(0, MESSAGE_LIMIT)],
    warnings: [],
  };
}

function readEnvelope(o: Record<string, unknown>): BodyShape | undefined {
  const resultCode = toInteger(o.ResultCode);
  const isValid = typeof o.IsValid === 'boolean' ? o.IsValid : undefined;
  if (resultCode === undefined && isValid === undefined) return undefined;
  let messages = strings(o.Errors);
  if (
    messages.length === 0 &&
    isValid !== true &&
    typeof o.ResultData === 'string' &&
    o.ResultData.trim() !== ''
  ) {
    // For E5/E6 400/401 the message is repeated in ResultData; keep it when Errors is empty.
    messages = [o.ResultData.trim()];
  }
  return {
    type: 'envelope',
    resultData: o.ResultData,
    messages,
    warnings: [...strings(o.Warning), ...strings(o.Warnings)],
    ...(resultCode !== undefined ? { resultCode } : {}),
    ...(isValid !== undefined ? { isValid } : {}),
  };
}

function readPosRecord(o: Record<string, unknown>): BodyShape {
  const status = o.authorityStatus;
  const normalised =
    status === true || status === 'true'
      ? 'true'
      : status === false || status === 'false'
        ? 'false'
        : undefined;
  const messages = strings(o.erroresAuthority);
  if (messages.length === 0 && normalised === 'false' && typeof o.descripcion === 'string')
    messages.push(o.descripcion);
  return {
    type: 'pos-record',
    messages,
    warnings: strings(o.notificaciones),
    ...(normalised !== undefined ? { authorityStatus: normalised } : {}),
  };
}

function readCommissioning(o: Record<string, unknown>, habilitado: boolean): BodyShape {
  const messages = [...strings([o.mensaje]), ...strings(o.detalle)];
  return { type: 'commissioning', habilitado, messages, warnings: [] };
}

function readErrorRecord(o: Record<string, unknown>, status: number, raw: string): BodyShape {
  const messages = strings([o.message ?? o.error, ...(Array.isArray(o.details) ? o.details : [])]);
  return { type: 'error-record', status, raw, messages, warnings: [] };
}

function parseJsonText(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}

function rawText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body.slice(0, RAW_LIMIT);
  try {
    return (JSON.stringify(body) ?? '').slice(0, RAW_LIMIT);
  } catch {
    return String(body).slice(0, RAW_LIMIT);
  }
}

function toInteger(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,4}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function strings(value: unknown): string[] {
  if (!Array.isArray(value))
    return typeof value === 'string' && value.trim() !== '' ? [value.slice(0, MESSAGE_LIMIT)] : [];
  return value
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    .map((v) => v.slice(0, MESSAGE_LIMIT));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
