/**
 * What the service says it issued, read from its answer: the identifiers a response carries and the
 * number it assigned to a document that did not carry its own.
 *
 * - POS (E3, and E4 where the service answers the same record): the document record's `prefijo`,
 *   `numeroDocumento`, `cude`, `qr` and `idDocumento` (spec "POS document record").
 * - E1, E2, E5, E6: the spec shows `ResultData` as a string (`Procesado Correctamente.`), so no
 *   identifier comes as data; the number the service assigned comes only in a notice (`Warning`),
 *   in the forms the service is known to write:
 *     `…numeración por defecto SETP (resolución …), vigente hasta …; número asignado SETP990000000.`
 *     `Se asignó el consecutivo NOM5 de la numeración de nómina de la empresa.`
 *   Should a service answer with an object `ResultData`, its identifier fields (CUFE, CUDE, CUNE, QR,
 *   UUID, whatever their case) are kept too, under the names it gave them.
 */

export interface IssuedNumber {
  prefix: string;
  number: string;
}

/** Identifiers of a POS record, as the spec names them. */
const POS_FIELDS = ['idDocumento', 'cude', 'qr'] as const;
/** Identifier names looked for in an object ResultData (compared without case). */
const ENVELOPE_FIELDS = new Set(['cufe', 'cude', 'cune', 'qr', 'qrcode', 'uuid', 'documentkey']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function scalar(value: unknown): value is string | number | null {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

function text(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The identifiers in a response body (POS record fields, or identifier fields of an object ResultData). */
export function identifiersIn(body: unknown): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  if (!isRecord(body)) return out;
  if ('authorityStatus' in body) {
    for (const f of POS_FIELDS)
      if (f in body && scalar(body[f])) out[f] = body[f] as string | number | null;
    return out;
  }
  const data = body.ResultData;
  if (isRecord(data)) {
    for (const [k, v] of Object.entries(data))
      if (ENVELOPE_FIELDS.has(k.toLowerCase()) && scalar(v)) out[k] = v;
  }
  return out;
}

/** The prefix and number a POS record states (`prefijo`, `numeroDocumento`). */
export function numberInRecord(body: unknown): IssuedNumber | undefined {
  if (!isRecord(body) || !('authorityStatus' in body)) return undefined;
  const prefix = text(body.prefijo);
  const number = text(body.numeroDocumento);
  return prefix !== undefined && number !== undefined ? { prefix, number } : undefined;
}

/**
 * Splits `SETP990000000` into prefix and number: by the prefix the notice names, else the one the
 * request sent, else at the trailing digits (a prefix that itself ends in digits is then ambiguous:
 * the response is kept whole in result.json for that case).
 */
function split(full: string, prefixes: readonly (string | undefined)[]): IssuedNumber | undefined {
  for (const p of prefixes) {
    if (p !== undefined && p !== '' && full.startsWith(p) && /^\d+$/.test(full.slice(p.length))) {
      return { prefix: p, number: full.slice(p.length) };
    }
  }
  const m = /^(.*?)(\d+)$/.exec(full);
  return m === null ? undefined : { prefix: m[1], number: m[2] };
}

/** The number the service says it assigned, from its notices (the forms above); undefined when none says so. */
export function assignedInNotices(
  notices: readonly string[],
  requestPrefix?: string,
): IssuedNumber | undefined {
  for (const notice of notices) {
    const full =
      /n[uú]mero asignado\s+([^\s;,]+?)\.?(?=\s|$)/iu.exec(notice)?.[1] ??
      /se asign[oó] el consecutivo\s+([^\s;,]+?)\.?(?=\s|$)/iu.exec(notice)?.[1];
    if (full === undefined) continue;
    const named = /numeraci[oó]n por defecto\s+([^\s;,(]+)/iu.exec(notice)?.[1];
    const found = split(full, [named, requestPrefix]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The number a response says was issued: the POS record's, else one a notice names as assigned. */
export function issuedNumberIn(
  body: unknown,
  notices: readonly string[],
  requestPrefix?: string,
): IssuedNumber | undefined {
  return numberInRecord(body) ?? assignedInNotices(notices, requestPrefix);
}
