/**
 * The parts of a document key the kinds share: a prefix and a number as the request (or the service)
 * states them, normalised. Which fields hold them is each kind's own (its descriptor's `key`).
 */
import { obj, text } from '../validate/access.js';

export interface DocumentKey {
  prefix: string;
  number: string;
}

/** E3 form fields / E4 body fields that may carry the POS prefix and number. */
export interface PosNumbering {
  prefijo?: string;
  numeroDocumento?: string | number;
}

/** The first value that is non-empty text after trimming. */
export function firstFilled(...values: unknown[]): string | undefined {
  for (const v of values) {
    const t = text(v)?.trim();
    if (t !== undefined && t !== '') return t;
  }
  return undefined;
}

/** A key from a prefix and a number, or undefined when either is empty. */
export function makeKey(prefix: unknown, number: unknown): DocumentKey | undefined {
  const p = text(prefix)?.trim();
  const n = text(number)?.trim();
  if (p === undefined || p === '' || n === undefined || n === '') return undefined;
  // Consecutives are integers to the authority: 0990000001 and 990000001 are one number.
  return { prefix: p, number: /^\d+$/.test(n) ? n.replace(/^0+(?=\d)/, '') : n };
}

/** E1, E5, E6: `SeriePrefix` + `SerieNumber`. */
export function seriesKey(request: unknown): DocumentKey | undefined {
  const r = obj(request);
  return r === undefined ? undefined : makeKey(r.SeriePrefix, r.SerieNumber);
}

export function seriesPrefix(request: unknown): string | undefined {
  return firstFilled(obj(request)?.SeriePrefix);
}
