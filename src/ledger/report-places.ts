/**
 * Where a file's reports live: the files whose outbox names a new report would take (moved aside
 * first), and the record of a report set moved aside (src/report/move-aside.ts).
 */
import path from 'node:path';
import { NO_FENCE, type Fence } from './fence.js';
import { addEvent } from './events.js';
import { getFile } from './files.js';
import { toFileRow } from './rows.js';
import type { RawFile } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';
import type { FileRow } from './types.js';

/**
 * Other files whose reports hold the outbox names `reportName` in the company's kind (not moved
 * aside), recorded before `fileId`, newest first: a file about to write its first report under
 * those names moves theirs aside first.
 */
export async function reportHolders(q: SqlExecutor, fileId: number): Promise<FileRow[]> {
  const file = await getFile(q, fileId);
  if (!file || file.reportDir !== null) return [];
  return (
    await q.all<RawFile>(
      `SELECT * FROM files WHERE company = ? AND kind = ? AND report_name = ? AND report_dir IS NULL AND id < ?
    ORDER BY id DESC`,
      [file.company, file.kind, file.reportName, fileId],
    )
  ).map(toFileRow);
}

/** The stem is taken in `dir` by the moved-aside reports of a file other than `fileId`. */
export async function reportPlaceTaken(
  q: SqlExecutor,
  dir: string,
  reportName: string,
  fileId: number,
): Promise<boolean> {
  return (
    (await q.get(
      'SELECT 1 FROM files WHERE report_dir = ? AND report_name = ? AND id <> ? LIMIT 1',
      [dir, reportName, fileId],
    )) !== undefined
  );
}

/** The file's reports now live in `dir` as `reportName` (moved aside: a later file took its names). */
export function relocateReport(
  q: SqlExecutor,
  fileId: number,
  dir: string,
  reportName: string,
  now: number,
  fence: Fence = NO_FENCE,
): Promise<void> {
  return q.transaction(async (tx) => {
    const from = await tx.get<{ report_name: string; company: string }>(
      'SELECT report_name, company FROM files WHERE id = ?',
      [fileId],
    );
    if (from !== undefined) await fence(tx, [from.company]);
    await tx.run('UPDATE files SET report_dir = ?, report_name = ? WHERE id = ?', [
      dir,
      reportName,
      fileId,
    ]);
    await addEvent(tx, now, 'report-moved', fileId, null, {
      from: from?.report_name,
      to: path.join(dir, reportName),
    });
  });
}
