/**
 * The cluster's fencing hook as the ledger's logic calls it: inside a write transaction made on behalf
 * of the running pipeline, once per company the transaction touched, before it commits (port.ts,
 * LedgerFence). Without a fence (SQLite, one node) it costs nothing.
 */
import type { LedgerFence } from './port.js';
import type { SqlExecutor } from './sql/executor.js';

export type Fence = (tx: SqlExecutor, companies: Iterable<string>) => Promise<void>;

export const NO_FENCE: Fence = async () => undefined;

export function fenceOf(fence: LedgerFence | undefined): Fence {
  if (fence === undefined) return NO_FENCE;
  return async (tx, companies) => {
    for (const company of new Set(companies)) await fence.check(tx, company);
  };
}
