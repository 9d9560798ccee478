/**
 * What `retry` says when it re-queues nothing for a file: how the documents of each file of that name
 * stand, and that rejected and invalid ones are never re-queued (the service would answer the same) but
 * corrected and dropped again. "No failed document matches" alone leaves an operator who read "retry"
 * in a report wondering what went wrong, or whether the name was mistyped.
 */
import type { LedgerPort } from '../ledger/port.js';
import type { DocumentState } from '../ledger/types.js';

const ORDER: readonly DocumentState[] = [
  'accepted',
  'duplicate',
  'rejected',
  'invalid',
  'failed',
  'in-doubt',
  'pending',
  'sending',
];

/** Files listed by name: an operator's list, never a bulk read. */
const LISTED = 5;

/** Why `retry --file NAME` found nothing to re-queue, as one paragraph. */
export async function fileStanding(ledger: LedgerPort, name: string): Promise<string> {
  const files = await ledger.filesMatching(name);
  if (files.length === 0)
    return (
      `the ledger holds no input file named ${name}: give the name as the outbox shows it ` +
      '(ventas.csv for outbox/invoice/ventas.result.json), or its archived copy’s path'
    );
  const lines: string[] = [];
  let toFix = 0;
  for (const f of files.slice(-LISTED)) {
    const { counts } = await ledger.fileProgress(f.id);
    toFix += counts.rejected + counts.invalid;
    const parts = ORDER.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
    const what = f.error !== null && parts.length === 0 ? `file error ${f.error.code}` : '';
    lines.push(
      `  ${f.archivedPath || f.path}, taken ${new Date(f.startedAt).toISOString()}: ` +
        (parts.length > 0 ? parts.join(', ') : what || 'no documents'),
    );
  }
  const more = files.length > LISTED ? ` (the last ${LISTED} of ${files.length})` : '';
  return (
    `no document of ${name} is failed or in doubt${more}:\n${lines.join('\n')}` +
    (toFix > 0
      ? '\nRejected and invalid documents are not re-queued (the service would answer the same): ' +
        'correct them (in the ERP, or in the retry file beside the report) and drop the corrected file into the inbox; ' +
        'a number accepted since from a later file is done.'
      : '')
  );
}
