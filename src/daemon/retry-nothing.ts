/**
 * What `retry` says when it re-queues nothing for a file or a document: how the documents of each file
 * of that name, or each copy of that document, stand, and that rejected and invalid ones are never re-queued (the service would answer the same) but
 * corrected and dropped again. "No failed document matches" alone leaves an operator who read "retry"
 * in a report wondering what went wrong, or whether the name was mistyped.
 */
import type { LedgerPort } from '../ledger/port.js';
import { positionText } from '../report/errors-csv.js';
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

/** Why `retry --document KEY` (a full key) found nothing to re-queue, as one paragraph. */
export async function documentStanding(ledger: LedgerPort, key: string): Promise<string> {
  const copies = await ledger.numberCopies(key);
  if (copies.length === 0)
    return (
      `the ledger holds no document ${key}: give its key as the report shows it ` +
      '(company/kind/PREFIX/NUMBER), or FILE#INDEX for one without a number of its own'
    );
  const shown = copies.slice(-LISTED);
  const lines = shown.map(
    (c) =>
      `  ${c.archivedPath || c.file}${positionText(c.source) ? `, ${positionText(c.source)}` : ''}: ${c.state}`,
  );
  const more = copies.length > LISTED ? ` (the last ${LISTED} of ${copies.length})` : '';
  const states = new Set(copies.map((c) => c.state));
  const advice = [
    ...(states.has('accepted')
      ? [
          'An accepted document is issued: nothing is sent again; a change to it is a credit or debit note.',
        ]
      : []),
    ...(states.has('rejected') || states.has('invalid')
      ? [
          'Rejected and invalid documents are not re-queued (the service would answer the same): correct them ' +
            'in the ERP and drop the corrected file into the inbox.',
        ]
      : []),
  ];
  return `no copy of ${key} is failed or in doubt${more}:\n${lines.join('\n')}${advice.map((a) => `\n${a}`).join('')}`;
}
