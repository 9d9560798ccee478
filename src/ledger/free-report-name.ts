/**
 * The stem of a file's outbox names, chosen when the file is recorded so that two files never share
 * a report.
 */
import type { SqlExecutor } from './sql/executor.js';

/**
 * The stem of a file's outbox names (`<stem>.result.json`): its own name's stem, unless a file still
 * being worked on uses it (reading, documents not final, or its final report not written yet), or
 * another input name does (NAME.csv and NAME.json), so that two files never share a report; then
 * `NAME (2)`, `NAME (3)`…. The same input name dropped again once the earlier one finished (ERPs reuse
 * daily names) gets the same stem back: the earlier report set then moves to the archive before the
 * new one is written (src/report/move-aside.ts). `fresh` (a duplicate drop, whose report must never
 * take the place of the outcome it duplicates) takes only a stem no file's report holds.
 */
export async function freeReportName(
  q: SqlExecutor,
  company: string,
  kind: string,
  stem: string,
  name: string,
  fresh: boolean,
  avoid?: string,
): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? stem : `${stem} (${n})`;
    const taken = fresh
      ? await q.get(
          'SELECT 1 FROM files WHERE company = ? AND kind = ? AND report_name = ? AND report_dir IS NULL LIMIT 1',
          [company, kind, candidate],
        )
      : await q.get(
          `SELECT 1 FROM files WHERE company = ? AND kind = ? AND report_name = ? AND report_dir IS NULL
        AND (state IN ('reading','open') OR report_state <> 'final' OR name <> ?) LIMIT 1`,
          [company, kind, candidate, name],
        );
    if (candidate !== avoid && !taken) return candidate;
  }
}
