/**
 * The files table: one file's row, the files a restart or a take-over settles (still open, finished
 * but not reported or archived, recently archived), and the fenced one-row update the file stages share.
 */
import { NO_FENCE, type Fence } from './fence.js';
import { toFileRow } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';
import type { RawFile } from './rows.js';
import { CHANGED_AFTER_SEND } from './types.js';

import type { FileRow } from './types.js';

export { CHANGED_AFTER_SEND }; // src/daemon/archive-watch.ts imports it from here

export async function getFile(
  q: Pick<SqlExecutor, 'get'>,
  fileId: number,
): Promise<FileRow | undefined> {
  const r = await q.get<RawFile>('SELECT * FROM files WHERE id = ?', [fileId]);
  return r ? toFileRow(r) : undefined;
}

export interface ReadDetails {
  format: string;
  encoding?: string | null;
  header?: string | null;
}

/** One UPDATE of a file's row, fenced by the file's company when there is a fence. */
export async function updateFile(
  q: SqlExecutor,
  fence: Fence,
  sql: string,
  params: readonly unknown[],
): Promise<void> {
  if (fence === NO_FENCE) {
    await q.run(sql, params);
    return;
  }
  await q.transaction(async (tx) => {
    const row = await tx.get<{ company: string }>(`${sql} RETURNING company`, params);
    if (row !== undefined) await fence(tx, [row.company]);
  });
}

/** `AND company = ?` with its parameter when the read is scoped to one company (a cluster node's take-over). */
function ofCompany(company: string | undefined): { sql: string; params: string[] } {
  return company === undefined
    ? { sql: '', params: [] }
    : { sql: ' AND company = ?', params: [company] };
}

/** Files still being read or with documents not final, oldest first; of one company when given. */
export async function openFiles(q: SqlExecutor, company?: string): Promise<FileRow[]> {
  const scope = ofCompany(company);
  return (
    await q.all<RawFile>(
      `SELECT * FROM files WHERE state IN ('reading','open')${scope.sql} ORDER BY id`,
      scope.params,
    )
  ).map(toFileRow);
}

/** Finished files whose final report or archive move may not have happened (crash in between); of one company when given. */
export async function filesToSettle(q: SqlExecutor, company?: string): Promise<FileRow[]> {
  // only the partial index's own condition in SQL, so the planner cannot prefer files_state ('done' is most files)
  const scope = ofCompany(company);
  return (
    await q.all<RawFile>(
      `SELECT * FROM files WHERE (report_state <> 'final' OR archived_path IS NULL)${scope.sql} ORDER BY id`,
      scope.params,
    )
  )
    .filter((r) => r.state === 'done' || r.state === 'failed-read')
    .map(toFileRow);
}

/**
 * Files sent (or failed at their read) and archived since `since` (finished then or later) whose archived
 * copy is still where it was put and not yet flagged as changed: the daemon watches them again after a restart (archive watch).
 */
export async function recentlyArchived(q: SqlExecutor, since: number): Promise<FileRow[]> {
  return (
    await q.all<RawFile>(
      `SELECT * FROM files WHERE state IN ('done', 'failed-read') AND duplicate_of IS NULL
    AND finished_at >= ? AND archived_path IS NOT NULL AND archived_path <> '' ORDER BY id`,
      [since],
    )
  )
    .map(toFileRow)
    .filter(
      (f) =>
        f.error === null ||
        (f.error.code !== CHANGED_AFTER_SEND && f.error.code !== 'EDOC_READ_CHANGED'),
    );
}
