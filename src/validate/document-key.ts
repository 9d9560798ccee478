/**
 * The key of a document that carries its own number: prefix + number. The
 * ledger uses it to refuse issuing a number twice, and the submit stage to know
 * whether a lost request may be resent (the authority rejects a repeated number,
 * so a resend cannot issue twice). Without it the service assigns the number.
 */
import type { DocumentKind } from './kinds.js';
import { isObj, obj, text } from './access.js';

export interface DocumentKey {
  prefix: string;
  number: string;
}

/** E3 form fields / E4 body fields that may carry the POS prefix and number. */
export interface PosNumbering {
  prefijo?: string;
  numeroDocumento?: string | number;
}

export function documentKey(kind: DocumentKind, request: unknown, form?: PosNumbering): DocumentKey | undefined {
  const r = obj(request);
  switch (kind) {
    case 'invoice':
    case 'credit-note':
    case 'debit-note':
    case 'support-document':
    case 'support-adjustment':
      return r === undefined ? undefined : makeKey(r.SeriePrefix, r.SerieNumber);
    case 'payroll': {
      const seq = obj(r?.NumeroSecuenciaXML);
      return seq === undefined ? undefined : makeKey(seq.Prefijo, seq.Consecutivo);
    }
    case 'pos':
      return posKey(r, form);
  }
}

/** True when the request carries its own number (see `documentKey`). */
export function ownNumber(kind: DocumentKind, request: unknown, form?: PosNumbering): boolean {
  return documentKey(kind, request, form) !== undefined;
}

/** `formatKey('main', 'invoice', { prefix: 'SETP', number: '990000001' })` -> `main/invoice/SETP/990000001`. */
export function formatKey(company: string, kind: DocumentKind, key: DocumentKey): string {
  return `${company}/${kind}/${key.prefix}/${key.number}`;
}

/**
 * The POS content's `documento` first, then an E4 body (`prefijo`, `numero`,
 * `jsonOriginal`), then the E3 form fields, each part falling back separately.
 */
function posKey(r: Record<string, unknown> | undefined, form?: PosNumbering): DocumentKey | undefined {
  const content = posContent(r);
  const doc = obj(content?.documento);
  const prefix = firstFilled(doc?.prefijo, r?.prefijo, form?.prefijo);
  const number = firstFilled(doc?.numeroDocumento, r?.numero, r?.numeroDocumento, form?.numeroDocumento);
  return makeKey(prefix, number);
}

function posContent(r: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (r === undefined) return undefined;
  if (isObj(r.documento)) return r;
  if (typeof r.jsonOriginal === 'string') {
    try {
      return obj(JSON.parse(r.jsonOriginal));
    } catch {
      return undefined;
    }
  }
  return obj(r.jsonOriginal);
}

function firstFilled(...values: unknown[]): string | undefined {
  for (const v of values) {
    const t = text(v)?.trim();
    if (t !== undefined && t !== '') return t;
  }
  return undefined;
}

function makeKey(prefix: unknown, number: unknown): DocumentKey | undefined {
  const p = text(prefix)?.trim();
  const n = text(number)?.trim();
  if (p === undefined || p === '' || n === undefined || n === '') return undefined;
  // Consecutives are integers to the authority: 0990000001 and 990000001 are one number.
  return { prefix: p, number: /^\d+$/.test(n) ? n.replace(/^0+(?=\d)/, '') : n };
}

/** A key from a prefix and a number as the service stated them, normalised as a request's number is. */
export function keyFrom(prefix: string, number: string): DocumentKey | undefined {
  return makeKey(prefix, number);
}

/** The prefix a request names, with or without its number (the service numbers within that prefix). */
export function requestPrefix(kind: DocumentKind, request: unknown): string | undefined {
  const r = obj(request);
  switch (kind) {
    case 'payroll':
      return firstFilled(obj(r?.NumeroSecuenciaXML)?.Prefijo);
    case 'pos':
      return firstFilled(obj(posContent(r)?.documento)?.prefijo, r?.prefijo);
    default:
      return firstFilled(r?.SeriePrefix);
  }
}
