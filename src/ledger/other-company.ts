/**
 * The same export dropped in two companies' folders would be issued under both. "The same export" is the
 * same file content: its SHA-256, the hash the ledger already keys duplicate drops on. A document's
 * request is no help here: a mapping fills the issuer from the company it runs for, so the requests of one
 * export differ between companies while its bytes do not. The documents of a file whose content was taken
 * for another company before are held (`invalid`, EDOC_LEDGER_OTHER_COMPANY, naming that company and file)
 * until an operator releases them (`edoc-bridge retry --file NAME --other-company`).
 */
import type { SqlExecutor } from './sql/executor.js';
import type { ReportProblem } from './types.js';

export const OTHER_COMPANY = 'EDOC_LEDGER_OTHER_COMPANY';

/** The problem that holds the documents of `fileId`, when its content was taken for another company first. */
export async function otherCompanyHold(
  q: SqlExecutor,
  fileId: number,
): Promise<ReportProblem | undefined> {
  const other = await q.get<{ company: string; name: string; here: string }>(
    `SELECT o.company, o.name, f.company AS here
    FROM files f JOIN files o ON o.sha256 = f.sha256 AND o.company <> f.company AND o.id < f.id AND o.state <> 'failed-read'
    WHERE f.id = ? ORDER BY o.id LIMIT 1`,
    [fileId],
  );
  if (other === undefined) return undefined;
  return {
    code: OTHER_COMPANY,
    message:
      `Not sent: the same file content was taken for company ${other.company} (${other.name}), ` +
      `and one export is issued under one company. If it is meant for ${other.here} too, release it: ` +
      'edoc-bridge retry --file NAME --other-company.',
  };
}
