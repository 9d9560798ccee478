/**
 * A credit, debit or support adjustment note corrects a document that was issued. One whose referenced
 * document the ledger holds only as `rejected` or `invalid` (never issued) would be issued against
 * nothing: it is stored `invalid` with EDOC_LEDGER_REFERENCE_NOT_ISSUED, naming the document and its
 * state. A reference the ledger does not know at all may name a document issued before the bridge: the
 * note is sent, and the intake logs a warning (EDOC_LEDGER_REFERENCE_UNKNOWN). A referenced document
 * still on its way (pending, sending, failed, in doubt) or issued lets the note go as it is.
 */
import { numberSplits, referencedKinds, type DocumentKind } from '../kinds/index.js';
import { makeKey } from './rows.js';
import { textList } from './sql/dialect.js';
import type { SqlExecutor } from './sql/executor.js';
import type { ReportProblem } from './types.js';

export type ReferenceCheck = { notIssued: ReportProblem } | { unknown: string[] } | undefined;

const NEVER_ISSUED: ReadonlySet<string> = new Set(['rejected', 'invalid']);

export async function checkReferences(
  tx: SqlExecutor,
  company: string,
  kind: DocumentKind,
  references: readonly string[] | undefined,
): Promise<ReferenceCheck> {
  const kinds = referencedKinds(kind);
  if (references === undefined || references.length === 0 || kinds.length === 0) return undefined;
  const unknown: string[] = [];
  for (const written of references) {
    const keys = numberSplits(written).flatMap((n) => kinds.map((k) => makeKey(company, k, n)));
    if (keys.length === 0) {
      unknown.push(written);
      continue;
    }
    const list = textList(tx, keys);
    const rows = await tx.all<{ state: string; name: string }>(
      `SELECT d.state, f.name FROM documents d JOIN files f ON f.id = d.file_id
      WHERE d.key IN ${list.sql} ORDER BY d.id DESC`,
      [list.param],
    );
    if (rows.length === 0) {
      unknown.push(written);
      continue;
    }
    if (rows.every((r) => NEVER_ISSUED.has(r.state))) {
      const last = rows[0];
      return {
        notIssued: {
          code: 'EDOC_LEDGER_REFERENCE_NOT_ISSUED',
          field: 'DocumentReferences',
          value: written,
          message:
            `Not sent: it references ${written}, which the ledger holds as ${last.state} (${last.name}): it was never issued, ` +
            'so there is nothing for this note to correct. Issue the corrected document itself, or reference the document that was issued.',
        },
      };
    }
  }
  return unknown.length > 0 ? { unknown } : undefined;
}
