/**
 * `resolve`: the operator's word on in-doubt documents (--issued: the service holds this document;
 * --not-ours: it holds another under the repeated number). Nothing is sent; the documents' files'
 * reports are rewritten through the caller's `rewrite`. Used by `edoc-bridge resolve` and the console
 * (daemon/operator-actions.ts).
 */
import {
  byIndex,
  describeTarget,
  inDoubtAndFailed,
  severalFiles,
  type ActionResult,
  type ActionTarget,
} from './action-target.js';
import { differingCopies, otherCopiesNote, whichCopyMessage } from './number-copies.js';
import { ledgerNow } from '../policy/ledger-clock.js';
import { keyFrom } from '../kinds/document-key.js';
import { makeKey } from '../ledger/rows.js';
import type { NumberCopy } from '../ledger/number-copies.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AttentionDocument } from '../ledger/types.js';

export interface ResolveOptions {
  /** `issued`: the service holds THIS document (accepted); `not-ours`: it holds another under the repeated number (duplicate). */
  word: 'issued' | 'not-ours';
  note?: string;
  by: string;
  now?: number;
  /** Where it was given, for the note kept with the document ('edoc-bridge resolve', 'console'). */
  via: string;
  /**
   * `issued` only, one document: the number the service issued it under (`DS1043` or `DS/1043`), as the
   * operator found it. Kept as the document's key, so result.json's `issued` and the ledger hold it as data.
   */
  number?: string;
  /** Rewrites the reports of these files (settled when final); returns the result.json paths written. */
  rewrite(fileIds: readonly number[]): Promise<string[]>;
}

/** Records the operator's word on in-doubt documents; nothing is sent. Their files' reports are rewritten. */
export async function resolveDocuments(
  ledger: LedgerPort,
  target: ActionTarget,
  options: ResolveOptions,
): Promise<ActionResult> {
  const what = describeTarget(target);
  const now = options.now ?? ledgerNow();
  const issued = options.word === 'issued';
  const word = issued
    ? 'confirmed issued by the operator'
    : "number held by another document, by the operator's word";
  const note = `${word} (${options.via}, ${new Date(now).toISOString()})${options.note ? `: ${options.note}` : ''}`;
  const all = await inDoubtAndFailed(ledger, target);
  // one copy named by its place: a failed one an attempt of which may have reached the service may be the one
  // the service holds under its number (a corrected re-export went in doubt beside it)
  const byPlace = 'key' in target && byIndex(target.key) !== undefined;
  const found =
    issued && byPlace ? [...all.inDoubt, ...(await mayBeIssued(ledger, all.failed))] : all.inDoubt;
  if ('file' in target || byPlace) {
    const ambiguous = await severalFiles(ledger, what, found);
    if (ambiguous !== undefined) return { ids: [], fileIds: [], done: [], notes: [], ambiguous };
  }
  const targets = issued ? found : found.filter((d) => d.doubt === 'repeated-number');
  // copies of other contents under one number: a number (or a file's name) names none of them
  const copies = issued ? await differingCopies(ledger, targets) : new Map<string, NumberCopy[]>();
  const [first] = copies;
  if (!byPlace && !('ids' in target) && first !== undefined) {
    const ambiguous = whichCopyMessage(what, first[0], first[1]);
    return { ids: [], fileIds: [], done: [], notes: [], ambiguous };
  }
  const notes: string[] = [];
  const skipped = found.length - targets.length;
  if (skipped > 0) {
    notes.push(
      `${skipped} in-doubt document(s) of ${what} are in doubt for a lost answer (no-answer), not a repeated number: ` +
        '--not-ours does not apply to them (use --issued, or edoc-bridge retry --in-doubt if the service did not issue them)',
    );
  }
  const ids = targets.map((d) => d.id);
  const assigned =
    options.number === undefined ? undefined : issuedAs(targets, options.number, what);
  if (typeof assigned === 'string')
    return { ids: [], fileIds: [], done: [], notes: [...notes, assigned] };
  const changed: {
    ids: number[];
    fileIds: number[];
    taken?: { key: string }[];
    released?: number;
  } = issued
    ? await ledger.confirmIssued(ids, note, now, options.by, assigned)
    : await ledger.recordClash(ids, note, now, options.by);
  const taken = changed.taken ?? [];
  const unchanged = targets.filter(
    (d) => !changed.ids.includes(d.id) && !taken.some((t) => t.key === d.key),
  );
  let raced = 0;
  for (const d of unchanged) {
    const now = await ledger.getDocument(d.id);
    if (now === undefined || now.state === 'in-doubt') continue;
    raced++;
    const by =
      now.state === 'pending' || now.state === 'sending'
        ? 'retry re-queued it'
        : `it became ${now.state}`;
    notes.push(
      `${d.key ?? `${d.file}#${d.index}`} was not resolved: ${by} at the same moment, and that stands (it is ${now.state} now).`,
    );
  }
  if (taken.length > 0) {
    notes.push(
      `not recorded as issued: ${taken.map((t) => t.key).join(', ')} — another document of ours with that number is already ` +
        'recorded accepted, and the service holds one document per number. If the service holds that other one, use --not-ours here.',
    );
  }
  if (changed.ids.length === 0) {
    if (skipped === 0 && taken.length === 0 && raced === 0)
      notes.push(
        `nothing to resolve for ${what}: no in-doubt document matches (edoc-bridge status lists them)`,
      );
    return { ids: [], fileIds: [], done: [], notes };
  }
  const reports = await options.rewrite(changed.fileIds);
  for (const d of targets) {
    const list = d.key === null ? undefined : copies.get(d.key);
    const recorded = list?.find((c) => c.id === d.id);
    if (recorded !== undefined && changed.ids.includes(d.id))
      notes.push(otherCopiesNote(recorded, list!));
  }
  const unnumbered =
    issued && assigned === undefined
      ? targets.filter((d) => d.key === null && changed.ids.includes(d.id))
      : [];
  if (unnumbered.length > 0) {
    notes.push(
      `${unnumbered.length} of them had no number of their own: the number the service gave is not recorded as data; ` +
        'resolve one document with --number PREFIXNUMBER (as the service shows it) to record it',
    );
  }
  const numbered =
    assigned === undefined
      ? ''
      : ` under ${[...assigned.values()][0].split('/').slice(2).join('/')}`;
  const done = [
    issued
      ? `recorded ${changed.ids.length} document(s) as issued (accepted)${numbered}; nothing was sent`
      : `recorded ${changed.ids.length} document(s) as a number clash (duplicate, EDOC_SERVICE_NUMBER_CLASH): the service holds another ` +
        'document under their number; nothing was sent. Give them a new number and send them again.',
    ...reports.map((r) => `report rewritten: ${r}`),
  ];
  const released = changed.released ?? 0;
  if (released > 0)
    done.push(
      `${released} later copy(ies) of the same ERP document, held back while it was in doubt, are looked at again now (they become duplicate of it)`,
    );
  return { ids: changed.ids, fileIds: changed.fileIds, done, notes, reports, released };
}

/**
 * The key a document the service numbered is known by from the operator's --number: one document, with no
 * number of its own (or the same one). A message for the operator (string) when it cannot be used.
 */
function issuedAs(
  targets: readonly AttentionDocument[],
  text: string,
  what: string,
): ReadonlyMap<number, string> | string {
  if (targets.length !== 1) {
    return `--number names the number of one document: ${what} matches ${targets.length} in-doubt document(s); nothing was recorded`;
  }
  const [doc] = targets;
  const parts = /^(.*?)\/?(\d+)$/.exec(text.trim());
  const parsed = parts === null ? undefined : keyFrom(parts[1], parts[2]);
  if (parsed === undefined) {
    return `--number ${text}: not a number as the service writes one (a prefix and digits, e.g. DS1043 or SETP/990000123); nothing was recorded`;
  }
  const key = makeKey(doc.company, doc.kind, `${parsed.prefix}/${parsed.number}`);
  if (doc.key !== null && doc.key !== key) {
    return `--number ${text}: ${doc.file}#${doc.index} carries its own number (${doc.key}); nothing was recorded`;
  }
  return new Map([[doc.id, key]]);
}

/** Of failed documents, those an attempt of which may have reached the service: they may be issued. */
async function mayBeIssued(
  ledger: LedgerPort,
  failed: readonly AttentionDocument[],
): Promise<AttentionDocument[]> {
  const out: AttentionDocument[] = [];
  for (const d of failed)
    if ((await ledger.getDocument(d.id))?.maybeDelivered === true) out.push(d);
  return out;
}
