/**
 * Every document of ours stored under one number (its full key), with what an operator compares at the
 * authority: the file and place it came from, its state and the payable amount it carries. Read by
 * `resolve --issued` (daemon/number-copies.ts): the service holds one document per number, and where two
 * copies of ours with other contents may have reached it, only the operator can say which one it holds.
 */
import { parseSummary } from '../kinds/index.js';
import { parse } from './rows.js';
import type { SqlExecutor } from './sql/executor.js';
import type { DocumentState, DoubtReason, SourcePosition } from './types.js';

export interface NumberCopy {
  id: number;
  fileId: number;
  /** The input file's name, and its archived copy's path once archived (several files may share a name). */
  file: string;
  archivedPath: string | null;
  index: number;
  source: SourcePosition;
  state: DocumentState;
  doubt: DoubtReason | null;
  /** An attempt of this copy may have reached the service (the sticky ledger fact). */
  maybeDelivered: boolean;
  /** Its content's digest (kinds/content-summary.ts); undefined for a row stored before the summaries. */
  digest?: string;
  payable?: string;
}

/** Copies under one number looked at: an operator's list, never a bulk read. */
const COPIES_LIMIT = 50;

export async function numberCopies(q: SqlExecutor, key: string): Promise<NumberCopy[]> {
  const rows = await q.all<{
    id: number;
    file_id: number;
    idx: number;
    source: string | null;
    state: DocumentState;
    doubt: DoubtReason | null;
    maybe_delivered: number;
    content: string | null;
    name: string;
    archived_path: string | null;
  }>(
    `SELECT d.id, d.file_id, d.idx, d.source, d.state, d.doubt, d.maybe_delivered, d.content, f.name,
    f.archived_path FROM documents d JOIN files f ON f.id = d.file_id WHERE d.key = ? ORDER BY d.id LIMIT ?`,
    [key, COPIES_LIMIT],
  );
  return rows.map((r) => {
    const summary = parseSummary(r.content);
    return {
      id: r.id,
      fileId: r.file_id,
      file: r.name,
      archivedPath: r.archived_path,
      index: r.idx,
      source: parse<SourcePosition>(r.source, {}),
      state: r.state,
      doubt: r.doubt,
      maybeDelivered: Number(r.maybe_delivered) === 1,
      ...(summary === undefined ? {} : { digest: summary.digest }),
      ...(summary?.payable === undefined ? {} : { payable: summary.payable }),
    };
  });
}
