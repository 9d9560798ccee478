/**
 * The cluster's fencing hook as the ledger's logic calls it: inside a write transaction made on behalf
 * of the running pipeline, once per company the transaction touched, before it commits (port.ts,
 * LedgerFence). Without a fence (SQLite, one node) it costs nothing.
 */
import type { SqlExecutor } from './sql/executor.js';

export type Fence = (tx: SqlExecutor, companies: Iterable<string>) => Promise<void>;

export const NO_FENCE: Fence = async () => undefined;

/** port.ts's LedgerFence, by shape (port.ts imports the logic's types: importing it here would close a cycle). */
export function fenceOf(fence: { check(tx: SqlExecutor, company: string): Promise<void> } | undefined): Fence {
  if (fence === undefined) return NO_FENCE;
  return async (tx, companies) => {
    for (const company of new Set(companies)) await fence.check(tx, company);
  };
}
