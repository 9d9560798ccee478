/**
 * `retry`: failed documents (in-doubt ones only on the operator's word) back in the queue, minus those
 * another action settled at the same moment. Used by `edoc-bridge retry` and the console
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
import { ledgerNow } from '../policy/ledger-clock.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AttentionDocument, RequeueTarget } from '../ledger/types.js';
import { documentStanding, fileStanding } from './retry-nothing.js';

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
    const ambiguous = await severalFiles(ledger, what, all);
    if (ambiguous !== undefined) return { ids: [], fileIds: [], done: [], notes: [], ambiguous };
    requeue.ids = all.map((d) => d.id);
  } else if ('file' in target) {
    // releasing in-doubt documents is the operator's word on the ones they looked up: one file's, never
    // also those of an older file under the same (daily) name, which may be issued and would be issued twice
    const ambiguous = includeInDoubt ? await severalFiles(ledger, what, found.inDoubt) : undefined;
    if (ambiguous !== undefined) return { ids: [], fileIds: [], done: [], notes: [], ambiguous };
    requeue.fileName = target.file;
  } else requeue.key = target.key;
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
    // a file named alone: how its documents stand, and what to do with the rejected and invalid ones
    const plain = !includeInDoubt && options.includeOtherCompany !== true;
    const head =
      'file' in target && plain
        ? `nothing to re-queue: ${await fileStanding(ledger, target.file)}\n`
        : // a full key (company/kind/prefix/number); a tail of one (prefix/number) may match several
          'key' in target && plain && !byIndex(target.key) && target.key.split('/').length >= 4
          ? `nothing to re-queue: ${await documentStanding(ledger, target.key)}\n`
          : `nothing to re-queue for ${what}: no failed${includeInDoubt ? ' or in-doubt' : ''}` +
            `${options.includeOtherCompany === true ? ' or held for another company' : ''} document matches `;
    notes.push(
      (
        head +
        (options.includeOtherCompany === true
          ? ''
          : '(documents held because the same content was taken for another company ' +
            'are released with --other-company)')
      ).trimEnd(),
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
