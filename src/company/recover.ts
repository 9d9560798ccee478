/**
 * Start-up recovery of the documents a stopped process left `sending` (ledger recoverSending: those
 * with their own number go back to pending, the others become in-doubt). The daemon and
 * `edoc-bridge submit` both run it before their senders start: senders only take pending documents,
 * so a document left `sending` would otherwise never become final, and a foreground submit would
 * wait for it forever. A document set in doubt here is final, so it gets its `document final` line
 * like every other.
 */
import type { LedgerPort } from '../ledger/port.js';
import { logDocumentFinal } from '../log/document-final.js';
import type { AppLogger } from '../log/logger.js';

export async function recoverSending(
  ledger: LedgerPort,
  logger: AppLogger,
  company?: string,
): Promise<{ resent: number; inDoubt: number }> {
  const recovered = await ledger.recoverSending(undefined, company);
  const counts = { resent: recovered.resent.length, inDoubt: recovered.inDoubt.length };
  if (counts.resent + counts.inDoubt === 0) return counts;
  logger.warn(
    { ...counts, ...(company === undefined ? {} : { company }) },
    company === undefined
      ? 'documents were being sent when the last run stopped: those with their own number are resent, the others are in doubt'
      : 'documents of this company were being sent by its last owner: those with their own number are resent, the others are in doubt',
  );
  // a company taken over may have hundreds in doubt over a few files: each file read once
  const files = new Map<number, Awaited<ReturnType<LedgerPort['getFile']>>>();
  for (const id of recovered.inDoubt) {
    const doc = await ledger.getDocument(id);
    if (doc !== undefined && !files.has(doc.fileId))
      files.set(doc.fileId, await ledger.getFile(doc.fileId));
    const file = doc === undefined ? undefined : files.get(doc.fileId);
    if (doc === undefined || file === undefined) continue;
    logDocumentFinal(logger, {
      file: file.name,
      kind: file.kind,
      company: file.company,
      doc: doc.key ?? `#${doc.index}`,
      status: 'in-doubt',
      code: 'EDOC_SUBMIT_IN_DOUBT',
      doubt: 'no-answer',
      attempts: doc.attempts,
      note: 'sent before the last run stopped; no own number, so not resent',
    });
  }
  return counts;
}
