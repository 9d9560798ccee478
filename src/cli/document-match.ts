/**
 * How an operator names documents on the command line (retry, resolve): by their key as result.json
 * shows it (company/kind/prefix/number) or its tail (prefix/number), and a document without its own
 * number by its place: FILE#INDEX as edoc-bridge status shows it, or company/kind/INDEX.
 */
import type { AttentionDocument } from '../ledger/types.js';
import { isDocumentKind } from '../validate/kinds.js';

/** FILE#INDEX, as status shows a document without its own number, or company/kind/INDEX. */
export function byIndex(key: string): { file?: string; company?: string; kind?: string; index: number } | undefined {
  const at = /^(.+)#(\d+)$/.exec(key);
  if (at) return { file: at[1], index: Number(at[2]) };
  const place = /^([^/]+)\/([^/]+)\/(\d+)$/.exec(key);
  if (place && isDocumentKind(place[2])) return { company: place[1], kind: place[2], index: Number(place[3]) };
  return undefined;
}

/** The full key (company/kind/prefix/number), a tail of it (prefix/number), or a place (see byIndex). */
export function matchesKey(d: AttentionDocument, key: string): boolean {
  const place = byIndex(key);
  if (place) {
    return d.index === place.index && (place.file === undefined || d.file === place.file)
      && (place.company === undefined || d.company === place.company) && (place.kind === undefined || d.kind === place.kind);
  }
  return d.key !== null && (d.key === key || d.key.endsWith(`/${key}`));
}
