/**
 * A file's report times (when it was last written, when it may be written next) and its `progress`
 * line: done, total, rate and the time left, at most once per `progressMs` while the file sends. The
 * report scheduler keeps one `FileTimes` per file it writes.
 */
import type { LedgerPort } from '../ledger/port.js';
import type { AppLogger } from '../log/logger.js';
import type { FileRow } from '../ledger/types.js';

export interface FileTimes {
  lastWrite: number;
  nextWrite: number;
  lastProgress: number;
  startedAt: number;
  doneAtStart: number;
  failing: boolean;
}

export function newFileTimes(now: number): FileTimes {
  return {
    lastWrite: 0,
    nextWrite: 0,
    lastProgress: now,
    startedAt: now,
    doneAtStart: -1,
    failing: false,
  };
}

/** Logs the file's `progress` line when `progressMs` passed since the last one (the first report sets the baseline). */
export async function logProgress(
  o: { ledger: Pick<LedgerPort, 'fileProgress'>; logger: AppLogger; progressMs: number },
  file: Pick<FileRow, 'id' | 'name' | 'company' | 'kind'>,
  t: FileTimes,
): Promise<void> {
  const now = Date.now();
  // The first report only sets the baseline, so the first line comes one interval after it, not two.
  if (t.doneAtStart >= 0 && now - t.lastProgress < o.progressMs) return;
  const p = await o.ledger.fileProgress(file.id);
  const c = p.counts;
  const done = p.total - c.pending - c.sending;
  if (t.doneAtStart < 0) {
    t.doneAtStart = done;
    t.startedAt = now;
    t.lastProgress = now;
    return;
  }
  t.lastProgress = now;
  const rate = (done - t.doneAtStart) / Math.max((now - t.startedAt) / 1000, 0.001);
  const left = p.total - done;
  o.logger.info(
    {
      file: file.name,
      company: file.company,
      kind: file.kind,
      done,
      total: p.total,
      rejected: c.rejected,
      invalid: c.invalid,
      failed: c.failed,
      ratePerSecond: Math.round(rate * 10) / 10,
      etaSeconds: rate > 0 ? Math.round(left / rate) : null,
    },
    'progress',
  );
}
