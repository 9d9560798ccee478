/** Following one file through `edoc-bridge submit`: until its documents are final, with a progress bar. */
import type { LedgerPort } from '../../ledger/port.js';
import type { FileProgress } from '../../ledger/types.js';
import type { CompanySender } from '../../submit/company-sender.js';
import type { CliIO } from '../command.js';

/**
 * Resolves when every document of the file is final, the company got paused by a 401, `unreachable`
 * (called with every progress, the last one included) says to give up, or the command was interrupted.
 */
export async function waitForFile(
  ledger: LedgerPort,
  fileId: number,
  sender: CompanySender,
  signal: AbortSignal,
  unreachable: (p: FileProgress) => boolean,
): Promise<'final' | 'paused' | 'unreachable' | 'stopped' | 'storage'> {
  for (;;) {
    const p = await ledger.fileProgress(fileId);
    const giveUp = unreachable(p);
    if (p.final) return 'final';
    if (signal.aborted) return 'stopped';
    if (sender.isPaused) return 'paused';
    // a foreground command does not wait for space: it stops cleanly and the re-run goes on
    if (sender.storageBlocked) return 'storage';
    if (giveUp) return 'unreachable';
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export function pendingOf(c: {
  total: number;
  accepted: number;
  rejected: number;
  invalid: number;
  failed: number;
  duplicate: number;
  inDoubt: number;
}): string {
  const pending =
    c.total - c.accepted - c.rejected - c.invalid - c.failed - c.duplicate - c.inDoubt;
  return pending > 0 ? `, ${pending} not sent yet` : '';
}

export function drawProgress(io: Pick<CliIO, 'progress'>, p: FileProgress): void {
  if (p.total === 0) return;
  const done = p.total - p.counts.pending - p.counts.sending;
  const width = 30;
  const filled = Math.round((done / p.total) * width);
  io.progress(
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${p.total}  accepted ${p.counts.accepted}` +
      `  not accepted ${done - p.counts.accepted}`,
    p.final,
  );
}
