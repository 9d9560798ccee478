/**
 * A document under a number the ledger holds as accepted is not sent again. Whether it is the document
 * that was issued (a quiet `duplicate`) or a corrected copy of it (same number, other content:
 * EDOC_ISSUED_OTHER_CONTENT, still not sent, reported for a person) is told by the summary each
 * document's content left in the ledger (kinds/content-summary.ts); an accepted row from before the
 * summaries has its summary made from its stored request when it is first compared.
 */
import {
  contentDifferences,
  contentSummary,
  otherContentMessage,
  parseKind,
  parseSummary,
  type ContentSummary,
} from '../kinds/index.js';
import { parse } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';
import type { ReportProblem } from './types.js';

export const ISSUED_OTHER_CONTENT = 'EDOC_ISSUED_OTHER_CONTENT';

/** The accepted document holding a key, as the comparison needs it. */
export interface IssuedRow {
  id: number;
  file_id: number;
  key: string;
  kind: string;
  content: string | null;
  file_name: string;
}

/** The columns of IssuedRow, from documents `a` joined with files `af` on a.file_id. */
export const ISSUED_COLUMNS = 'a.id, a.file_id, a.key, a.kind, a.content, af.name AS file_name';

/** The issued document's summary: stored, or made from its stored request (undefined when neither can be read). */
async function issuedSummary(tx: SqlExecutor, row: IssuedRow): Promise<ContentSummary | undefined> {
  const stored = parseSummary(row.content);
  if (stored !== undefined) return stored;
  const body = await tx.get<{ request: string | null }>(
    `SELECT CASE WHEN request_is_raw <> 0 THEN raw ELSE request END AS request
    FROM document_bodies WHERE id = ?`,
    [row.id],
  );
  const request = parse<unknown>(body?.request ?? null, undefined);
  return request === undefined
    ? undefined
    : contentSummary(parseKind(row.kind, `ledger document ${row.id}`), request);
}

/**
 * The EDOC_ISSUED_OTHER_CONTENT problem of a document whose content (`content`, its stored summary) is not
 * what was issued under its number, or undefined when it is the same document (or either side cannot tell).
 */
export async function otherContentProblem(
  tx: SqlExecutor,
  issued: IssuedRow,
  content: string | null | undefined,
): Promise<ReportProblem | undefined> {
  const now = parseSummary(content);
  if (now === undefined) return undefined;
  const then = await issuedSummary(tx, issued);
  if (then === undefined || then.digest === now.digest) return undefined;
  const differences = contentDifferences(then, now);
  // a document the service numbered, settled by a person without its number, has no key
  const parts = ((issued.key as string | null) ?? '').split('/');
  const number = parts.length > 2 ? parts.slice(2).join('') : 'The document';
  return {
    code: ISSUED_OTHER_CONTENT,
    ...(differences.length === 0 ? {} : { field: differences.map((d) => d.label).join(', ') }),
    message: otherContentMessage(
      parseKind(issued.kind, `ledger document ${issued.id}`),
      number,
      issued.file_name,
      differences,
      now.note === true,
    ),
  };
}
