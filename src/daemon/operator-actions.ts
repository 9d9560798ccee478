/**
 * The operator's two ways out for documents that need a person, in one place: `retry` (re-queue failed
 * work; in-doubt documents only on the operator's word) and `resolve` (record what the service holds:
 * --issued / --not-ours). `edoc-bridge retry` / `resolve` (on a shared connection beside a daemon) and the
 * web console (on the daemon's own connection) both call these; what differs is how the reports are
 * rewritten and how the senders learn of re-queued work, which the caller passes in.
 * Messages are returned, not printed: the CLI prints them, the console shows them.
 */
import { ledgerNow } from '../policy/ledger-clock.js';
import type { Config } from '../config/schema.js';
import { secretScrubberOf } from '../config/secrets.js';
import { keyFrom } from '../kinds/document-key.js';
import { isDocumentKind } from '../kinds/index.js';
import { makeKey } from '../ledger/rows.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AttentionDocument, RequeueTarget } from '../ledger/types.js';
import type { ConsoleActions } from '../http/console/deps.js';
import { settleFile } from './file-reports.js';
import { inInboxFolder, outboxDir } from './folders.js';

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

/** The full key (company/kind/prefix/number), a tail of it (prefix/number), or a place (see byIndex). */
export function matchesKey(d: AttentionDocument, key: string): boolean {
  const place = byIndex(key);
  if (place) {
    return (
      d.index === place.index &&
      (place.file === undefined || d.file === place.file) &&
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
}

async function inDoubtAndFailed(
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
  const matches = (d: AttentionDocument): boolean =>
    'file' in target ? d.file === target.file : matchesKey(d, target.key);
  return { inDoubt: summary.inDoubt.filter(matches), failed: summary.failed.filter(matches) };
}

function severalFiles(key: string, found: readonly AttentionDocument[]): string | undefined {
  if (new Set(found.map((d) => d.fileId)).size <= 1) return undefined;
  return `${key} names documents of several files: use one of ${found.map((d) => `${d.file}#${d.index}`).join(', ')}`;
}

/**
 * Puts failed documents (in-doubt ones only with `includeInDoubt`, never a repeated-number doubt) back in
 * the queue. The caller then tells the senders (a running daemon: SIGHUP from the CLI, `wake()` in it).
 */
export async function retryDocuments(
  ledger: LedgerPort,
  target: ActionTarget,
  options: { includeInDoubt: boolean; includeOtherCompany?: boolean; by: string; now?: number },
): Promise<ActionResult> {
  const what = describeTarget(target);
  const { includeInDoubt } = options;
  const requeue: RequeueTarget = {
    includeInDoubt,
    now: options.now ?? ledgerNow(),
    by: options.by,
    ...(options.includeOtherCompany === true ? { includeOtherCompany: true } : {}),
  };
  const found = await inDoubtAndFailed(ledger, target);
  if ('ids' in target) requeue.ids = [...target.ids];
  else if ('key' in target && byIndex(target.key)) {
    // a document without its own number, by its place in its file
    const all = [...found.failed, ...found.inDoubt];
    const ambiguous = severalFiles(target.key, all);
    if (ambiguous !== undefined) return { ids: [], fileIds: [], done: [], notes: [], ambiguous };
    requeue.ids = all.map((d) => d.id);
  } else if ('file' in target) requeue.fileName = target.file;
  else requeue.key = target.key;
  const result = await ledger.requeue(requeue);
  const changed = new Set(result.ids);
  const notes: string[] = [];
  // settled by another action between our read and the re-queue (`resolve` at the same moment): that word won
  const settled = await settledMeanwhile(
    ledger,
    [...found.failed, ...found.inDoubt].filter((d) => !changed.has(d.id)),
  );
  for (const s of settled) notes.push(s.note);
  const settledIds = new Set(settled.map((s) => s.id));
  const released = found.inDoubt.filter((d) => changed.has(d.id));
  const held = found.inDoubt.filter((d) => !changed.has(d.id) && !settledIds.has(d.id));
  if (released.length > 0) {
    notes.push(
      `warning: ${released.length} in-doubt document(s) released on your word that the service did not issue them; ` +
        'they will be sent again and, if it did issue them, issued twice.',
    );
  }
  // A repeated-number doubt is never released: the resend would only meet the same Regla 90 (resolve decides it).
  const repeated = held.filter((d) => d.doubt === 'repeated-number');
  const unanswered = held.filter((d) => d.doubt !== 'repeated-number');
  if (repeated.length > 0) {
    notes.push(
      `${repeated.length} in-doubt document(s) of ${what} were not released: the service already holds a document under ` +
        `their number (Regla 90, ${repeated
          .map((d) => d.key ?? `${d.file}#${d.index}`)
          .slice(0, 5)
          .join(', ')}${repeated.length > 5 ? ', …' : ''}), ` +
        'so sending them again only gets the same answer. Check at the authority which document it holds under the number, then run ' +
        'edoc-bridge resolve --document KEY --issued if it is this one, or --not-ours if it is another document.',
    );
  }
  if (unanswered.length > 0) {
    notes.push(
      `${unanswered.length} in-doubt document(s) of ${what} were not released: check with the service that they were not issued, ` +
        'then run this again with --in-doubt',
    );
  }
  if (result.ids.length === 0 && held.length === 0 && settled.length === 0) {
    notes.push(
      `nothing to re-queue for ${what}: no failed${includeInDoubt ? ' or in-doubt' : ''}` +
        `${options.includeOtherCompany === true ? ' or held for another company' : ''} document matches` +
        (options.includeOtherCompany === true
          ? ''
          : ' (documents held because the same content was taken for another company ' +
            'are released with --other-company)'),
    );
  }
  const done =
    result.ids.length === 0
      ? []
      : [`re-queued ${result.ids.length} document(s) of ${result.fileIds.length} file(s)`];
  return { ids: result.ids, fileIds: result.fileIds, done, notes };
}

/**
 * The documents of `found` (in-doubt or failed when read) that another action moved to a state `retry`
 * does not release meanwhile, each with a note that names the word that won.
 */
async function settledMeanwhile(
  ledger: LedgerPort,
  found: readonly AttentionDocument[],
): Promise<{ id: number; note: string }[]> {
  const out: { id: number; note: string }[] = [];
  for (const d of found) {
    const now = await ledger.getDocument(d.id);
    if (
      now === undefined ||
      now.state === d.state ||
      now.state === 'pending' ||
      now.state === 'sending'
    )
      continue;
    const name = d.key ?? `${d.file}#${d.index}`;
    const word =
      now.state === 'accepted'
        ? 'resolve --issued'
        : now.state === 'duplicate'
          ? 'resolve --not-ours'
          : 'another action';
    out.push({
      id: d.id,
      note:
        `${name} was not re-queued: ${word} settled it at the same moment (it is ${now.state} now), ` +
        `and that word stands; it will not be sent again.`,
    });
  }
  return out;
}

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
  const found = (await inDoubtAndFailed(ledger, target)).inDoubt;
  if ('key' in target && byIndex(target.key)) {
    const ambiguous = severalFiles(target.key, found);
    if (ambiguous !== undefined) return { ids: [], fileIds: [], done: [], notes: [], ambiguous };
  }
  const targets = issued ? found : found.filter((d) => d.doubt === 'repeated-number');
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
  const changed: { ids: number[]; fileIds: number[]; taken?: { key: string }[] } = issued
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
  return { ids: changed.ids, fileIds: changed.fileIds, done, notes, reports };
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

/**
 * Rewrites (and settles, when final) the reports of these files from a process that is not the daemon
 * (`edoc-bridge resolve`): where each file's reports live is fixed in the ledger. Returns the result.json paths.
 */
export async function rewriteReports(
  ledger: LedgerPort,
  config: Readonly<Config>,
  fileIds: readonly number[],
): Promise<string[]> {
  const reports: string[] = [];
  for (const fileId of fileIds) {
    const row = await ledger.getFile(fileId);
    if (row === undefined) continue;
    const dir = row.outboxDir ?? outboxDir(config, row.company, row.kind);
    const settled = await settleFile(ledger, fileId, dir, {
      archive: row.archive ?? inInboxFolder(config, row.path),
      scrub: (text) => secretScrubberOf(config).scrub(text),
    });
    if (settled.report) reports.push(settled.report.resultPath);
  }
  return reports;
}

/**
 * The console's actions on a running daemon's own ledger connection: re-queued work wakes the senders
 * at once, and reports are rewritten through the daemon's report scheduler (never beside it).
 */
export function consoleActions(
  ledger: LedgerPort,
  daemon: { wake(): void; report(fileId: number): Promise<{ resultPath?: string }> },
): ConsoleActions {
  return {
    retry: async (ids, options) => {
      const result = await retryDocuments(ledger, { ids }, options);
      if (result.ids.length > 0) daemon.wake();
      return Promise.resolve(result);
    },
    resolve: (ids, options) =>
      resolveDocuments(
        ledger,
        { ids },
        {
          ...options,
          via: 'console',
          rewrite: async (fileIds) => {
            const written: string[] = [];
            for (const id of fileIds) {
              const report = await daemon.report(id);
              if (report.resultPath !== undefined) written.push(report.resultPath);
            }
            return written;
          },
        },
      ),
  };
}
