/**
 * `resolve --issued` records which document of ours the service holds under a number. Where copies of
 * ours with other contents share that number (a first export whose answer was lost, then the ERP's
 * corrected re-export), either may be the one it holds, and the service's interface has no look-up of an
 * issued document (the spec shows none; E12 lists documents received from suppliers): only the operator,
 * at the authority, can tell. A number (or a file, whose documents the word would take all) then names no
 * copy: it is refused, naming each copy; a copy named by its place is recorded, and the others named beside it.
 */
import type { LedgerPort } from '../ledger/port.js';
import type { NumberCopy } from '../ledger/number-copies.js';
import type { AttentionDocument } from '../ledger/types.js';
import { positionText } from '../report/errors-csv.js';

/** A copy the service may hold: in doubt, or failed after an attempt that may have reached it. */
function mayBeHeld(c: NumberCopy): boolean {
  return c.state === 'in-doubt' || (c.state === 'failed' && c.maybeDelivered);
}

/** How the operator names a copy on the command line: its archived copy's path (or input name), `#` index. */
export function copyPlace(c: { file: string; archivedPath: string | null; index: number }): string {
  return `${c.archivedPath || c.file}#${c.index}`;
}

function copyLine(c: NumberCopy): string {
  const where = positionText(c.source);
  const state =
    c.state === 'failed'
      ? 'failed after an attempt that may have reached the service'
      : `in doubt (${c.doubt ?? 'no-answer'})`;
  return `  --document ${copyPlace(c)}   ${where === '' ? '' : `${where}, `}payable ${c.payable ?? 'not known'}, ${state}`;
}

/** The copies under each target's number that may be held by the service, where their contents differ. */
export async function differingCopies(
  ledger: LedgerPort,
  targets: readonly AttentionDocument[],
): Promise<Map<string, NumberCopy[]>> {
  const out = new Map<string, NumberCopy[]>();
  for (const key of new Set(targets.map((d) => d.key))) {
    if (key === null) continue;
    const copies = (await ledger.numberCopies(key)).filter(mayBeHeld);
    // a row stored before the summaries cannot be compared: it counts as other content
    const contents = new Set(copies.map((c) => c.digest ?? `#${c.id}`));
    if (contents.size > 1) out.set(key, copies);
  }
  return out;
}

/** A number names copies of other contents: nothing is recorded, each copy is named. */
export function whichCopyMessage(what: string, key: string, copies: readonly NumberCopy[]): string {
  const number = key.split('/').slice(2).join('');
  return (
    `${what}: ${copies.length} documents of ours carry the number ${number} with other contents, and the service holds ` +
    'one document under a number: nothing was recorded. Look the number up at the authority (the DIAN portal, or the ' +
    "provider's list of issued documents), compare what it holds (payable amount, customer, date), and resolve the " +
    `copy it holds by its place:\n${copies.map(copyLine).join('\n')}\n` +
    `e.g. edoc-bridge resolve --document ${copyPlace(copies[0])} --issued; an in-doubt copy it does not hold is then ` +
    'resolved with --not-ours.'
  );
}

/** After a copy named by its place was recorded issued: the other copies under its number, for the operator. */
export function otherCopiesNote(recorded: NumberCopy, copies: readonly NumberCopy[]): string {
  const others = copies.filter((c) => c.id !== recorded.id);
  return (
    `recorded ${copyPlace(recorded)} (payable ${recorded.payable ?? 'not known'}) as the document the service holds ` +
    'under its number. The service holds one document per number, so these copies of ours with other contents are ' +
    `not it (record an in-doubt one with --not-ours):\n${others.map(copyLine).join('\n')}`
  );
}
