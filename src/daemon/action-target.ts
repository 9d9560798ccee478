/**
 * What an operator action (daemon/retry-documents.ts, daemon/resolve-documents.ts) is aimed at and what it
 * comes to: a file, a key or place (`FILE#INDEX`, `company/kind/INDEX`), or ledger ids; the in-doubt and
 * failed documents such a target names.
 */
import { isDocumentKind } from '../kinds/index.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AttentionDocument } from '../ledger/types.js';

/** In-doubt and failed documents looked at per call: an operator's list, not a bulk export. */
export const ATTENTION_LIMIT = 100_000;

/** Which documents: every one of an input file, one by its key or place, or by ledger id (the console's buttons). */
export type ActionTarget = { file: string } | { key: string } | { ids: readonly number[] };

/** FILE#INDEX, as status shows a document without its own number, or company/kind/INDEX. */
export function byIndex(
  key: string,
): { file?: string; company?: string; kind?: string; index: number } | undefined {
  const at = /^(.+)#(\d+)$/.exec(key);
  if (at) return { file: at[1], index: Number(at[2]) };
  const place = /^([^/]+)\/([^/]+)\/(\d+)$/.exec(key);
  if (place && isDocumentKind(place[2]))
    return { company: place[1], kind: place[2], index: Number(place[3]) };
  return undefined;
}

/**
 * The full key (company/kind/prefix/number), a tail of it (prefix/number), or a place (see byIndex);
 * `fileIds`: the files a place's FILE names (inDoubtAndFailed), else its input name is compared.
 */
export function matchesKey(
  d: AttentionDocument,
  key: string,
  fileIds?: ReadonlySet<number>,
): boolean {
  const place = byIndex(key);
  if (place) {
    return (
      d.index === place.index &&
      (place.file === undefined || (fileIds?.has(d.fileId) ?? d.file === place.file)) &&
      (place.company === undefined || d.company === place.company) &&
      (place.kind === undefined || d.kind === place.kind)
    );
  }
  return d.key !== null && (d.key === key || d.key.endsWith(`/${key}`));
}

export function describeTarget(target: ActionTarget): string {
  if ('file' in target) return target.file;
  if ('key' in target) return target.key;
  return target.ids.length === 1 ? `document #${target.ids[0]}` : `${target.ids.length} documents`;
}

/** What an action came to; `ambiguous` (nothing done) when a place names documents of several files. */
export interface ActionResult {
  /** Documents that changed. */
  ids: number[];
  fileIds: number[];
  /** For the operator's standard output: what was done. */
  done: string[];
  /** For the operator's attention (standard error): warnings and what was not done, and why. */
  notes: string[];
  ambiguous?: string;
  /** result.json files rewritten (resolve). */
  reports?: string[];
  /** Copies of a resolved document's ERP key that were held back while it was in doubt, due now (resolve). */
  released?: number;
}

export async function inDoubtAndFailed(
  ledger: LedgerPort,
  target: ActionTarget,
): Promise<{ inDoubt: AttentionDocument[]; failed: AttentionDocument[] }> {
  if ('ids' in target) {
    const found = [];
    for (const id of target.ids) found.push((await ledger.console.history(id))?.document);
    const docs = found
      .filter((d) => d !== undefined)
      .map((d) => ({
        id: d.id,
        fileId: d.fileId,
        file: d.file,
        company: d.company,
        kind: d.kind,
        index: d.index,
        key: d.key,
        state: d.state,
        attempts: d.attempts,
        lastError: null,
        updatedAt: d.updatedAt,
        doubt: d.doubt,
      }));
    return {
      inDoubt: docs.filter((d) => d.state === 'in-doubt'),
      failed: docs.filter((d) => d.state === 'failed'),
    };
  }
  const summary = await ledger.statusSummary(ATTENTION_LIMIT);
  // FILE as `resend` takes it: the input name (which a daily export reuses), or the archived copy's path or name
  const fileName = 'file' in target ? target.file : byIndex(target.key)?.file;
  const fileIds =
    fileName === undefined
      ? undefined
      : new Set((await ledger.filesMatching(fileName)).map((f) => f.id));
  const matches = (d: AttentionDocument): boolean =>
    'file' in target ? fileIds!.has(d.fileId) : matchesKey(d, target.key, fileIds);
  return { inDoubt: summary.inDoubt.filter(matches), failed: summary.failed.filter(matches) };
}

/**
 * The operator's word is about documents they looked up: when `what` (a name a daily export reuses) names
 * documents of several files, the message that lists those files by their archived copies; nothing is done.
 */
export async function severalFiles(
  ledger: LedgerPort,
  what: string,
  found: readonly AttentionDocument[],
): Promise<string | undefined> {
  const ids = [...new Set(found.map((d) => d.fileId))];
  if (ids.length <= 1) return undefined;
  const lines: string[] = [];
  for (const id of ids) {
    const f = await ledger.getFile(id);
    const n = found.filter((d) => d.fileId === id).length;
    const where = f === undefined ? `file #${id}` : f.archivedPath || f.path;
    const taken = f === undefined ? '' : `, taken ${new Date(f.startedAt).toISOString()}`;
    lines.push(`  ${where}   ${f?.company ?? ''}/${f?.kind ?? ''}${taken}, ${n} document(s)`);
  }
  return (
    `${what} names documents of ${ids.length} files; nothing was done:\n${lines.join('\n')}\n` +
    'give the exact one by its archived copy: --file ARCHIVED-PATH, or --document ARCHIVED-PATH#INDEX'
  );
}
