/**
 * What the metrics read from the ledger at scrape time, so that they are right after any restart
 * (a SIGKILL included): documents by company, kind and state from the per-file counts (never a scan
 * of documents), files by kind and outcome, received documents by company.
 */
import type { SqlExecutor } from './sql/executor.js';
import type { DocumentState } from './types.js';

export interface OperatorCounts {
  documents: { company: string; kind: string; state: DocumentState; n: number }[];
  /** `outcome`: the file's state (reading, open, done, failed-read), or `duplicate` for a file refused as one. */
  files: { kind: string; outcome: string; n: number }[];
  received: { company: string; n: number }[];
}

export function operatorCounts(q: SqlExecutor): Promise<OperatorCounts> {
  // one read transaction: the three counts agree with each other
  return q.read(async (tx) => ({
    documents: await tx.all<
      OperatorCounts['documents'][number]
    >(`SELECT f.company, f.kind, c.state, CAST(sum(c.n) AS BIGINT) AS n
      FROM file_counts c JOIN files f ON f.id = c.file_id GROUP BY f.company, f.kind, c.state`),
    files: await tx.all<
      OperatorCounts['files'][number]
    >(`SELECT kind, CASE WHEN duplicate_of IS NOT NULL THEN 'duplicate' ELSE state END
      AS outcome, count(*) AS n FROM files GROUP BY kind, CASE WHEN duplicate_of IS NOT NULL THEN 'duplicate' ELSE state END`),
    received: await tx.all<OperatorCounts['received'][number]>(
      'SELECT company, count(*) AS n FROM received GROUP BY company',
    ),
  }));
}
