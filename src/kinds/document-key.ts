/**
 * The key of a document that carries its own number: prefix + number. The
 * ledger uses it to refuse issuing a number twice, and the submit stage to know
 * whether a lost request may be resent (the authority rejects a repeated number,
 * so a resend cannot issue twice). Without it the service assigns the number.
 * Where a kind carries its number is its descriptor's `key` (src/kinds/).
 */
import { kindOf, type DocumentKey, type DocumentKind, type PosNumbering } from './index.js';
import { makeKey } from './keys.js';

export type { DocumentKey, PosNumbering } from './index.js';

export function documentKey(
  kind: DocumentKind,
  request: unknown,
  form?: PosNumbering,
): DocumentKey | undefined {
  return kindOf(kind).key(request, form);
}

/** True when the request carries its own number (see `documentKey`). */
export function ownNumber(kind: DocumentKind, request: unknown, form?: PosNumbering): boolean {
  return documentKey(kind, request, form) !== undefined;
}

/** `formatKey('main', 'invoice', { prefix: 'SETP', number: '990000001' })` -> `main/invoice/SETP/990000001`. */
export function formatKey(company: string, kind: DocumentKind, key: DocumentKey): string {
  return `${company}/${kind}/${key.prefix}/${key.number}`;
}

/** A key from a prefix and a number as the service stated them, normalised as a request's number is. */
export function keyFrom(prefix: string, number: string): DocumentKey | undefined {
  return makeKey(prefix, number);
}

/** The prefix a request names, with or without its number (the service numbers within that prefix). */
export function requestPrefix(kind: DocumentKind, request: unknown): string | undefined {
  return kindOf(kind).prefix(request);
}
