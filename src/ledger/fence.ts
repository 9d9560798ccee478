/**
 * The cluster's fencing hook as the ledger's logic calls it: inside a write transaction made on behalf
 * of the running pipeline, once per company the transaction touched, before it commits (port.ts,
 * LedgerFence). Without a fence (SQLite, one node) it costs nothing.
 */
import type { SqlExecutor } from './sql/executor.js';

/** A dropped file as the cluster's claim names it (recordFile's input). */
export interface ClaimedFile {
  path: string;
  sha256: string;
  company: string;
}

export type Fence = ((tx: SqlExecutor, companies: Iterable<string>) => Promise<void>) & {
  /** The cluster's claim of a dropped file, in the transaction that records it as `fileId` (after the check). */
  claimFile?(tx: SqlExecutor, file: ClaimedFile, fileId: number): Promise<void>;
};

export const NO_FENCE: Fence = async () => undefined;

/** port.ts's LedgerFence, by shape (port.ts imports the logic's types: importing it here would close a cycle). */
export function fenceOf(
  fence:
    | { check(tx: SqlExecutor, company: string): Promise<void>; claimFile?: Fence['claimFile'] }
    | undefined,
): Fence {
  if (fence === undefined) return NO_FENCE;
  const check: Fence = async (tx, companies) => {
    for (const company of new Set(companies)) await fence.check(tx, company);
  };
  if (fence.claimFile !== undefined)
    check.claimFile = (tx, file, fileId) => fence.claimFile!(tx, file, fileId);
  return check;
}
