/**
 * How an operator names documents on the command line (retry, resolve): by their key as result.json
 * shows it (company/kind/prefix/number) or its tail (prefix/number), and a document without its own
 * number by its place: FILE#INDEX as edoc-bridge status shows it, or company/kind/INDEX.
 */
import { isEdocError } from '../errors.js';
import type { ParsedArgs } from './command.js';
import { usageError } from './command.js';
import { openLedger } from '../ledger/open.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AttentionDocument } from '../ledger/types.js';
import { isDocumentKind } from '../kinds/index.js';

/** In-doubt and failed documents looked at per call: an operator's list, not a bulk export. */
export const ATTENTION_LIMIT = 100_000;

/**
 * The ledger for a command's short shared writes, never its lock (a daemon or a submit may hold it
 * right now, or start meanwhile); undefined when the state folder has no ledger yet.
 */
export async function openShared(stateDir: string): Promise<LedgerPort | undefined> {
  try {
    return await openLedger({ paths: { state: stateDir } }, { shared: true });
  } catch (err) {
    if (!isEdocError(err, 'EDOC_LEDGER_NOT_FOUND')) throw err;
    return undefined;
  }
}

/** `--file NAME` or `--document KEY`, exactly one of them; `what` names it in messages. */
export function fileOrDocument(args: ParsedArgs): { file?: string; key?: string; what: string } {
  const file = args.string('file');
  const key = args.string('document');
  if ((file === undefined) === (key === undefined)) throw usageError('give exactly one of --file NAME or --document KEY');
  if (file === '' || key === '') throw usageError(`--${file === '' ? 'file' : 'document'} needs a value`);
  return { file, key, what: file ?? key ?? '' };
}

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
