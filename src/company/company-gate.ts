/**
 * A company's gate: whether this process runs the company now and whether a new request of it may
 * start. With the SQLite ledger one process runs every company and its gates are always open. In a
 * cluster (`ledger.url`) a gate is open while this node holds the company's lease, is not handing it
 * over, and renewed it recently enough (the self-fence); it is held (commits still pass the fence)
 * while the lease is held, a hand-over's drain included.
 */
import type { LeaseKeeper } from '../cluster/lease-keeper.js';
import type { SenderGate } from '../submit/company-sender-options.js';

export interface CompanyGate extends SenderGate {
  /** Whether this process runs the company now: always with one process; in a cluster, while it holds the lease. */
  held(): boolean;
  /** Whether a new request (a send, a pull, a range read, a probe) may start for the company now. */
  open(): boolean;
  /** A commit of the company was refused by the fence: its lease is dropped at once. */
  fenced(): void;
}

/** One process with the SQLite ledger: every company runs here, always. */
export const OPEN_GATE: CompanyGate = {
  held: () => true,
  open: () => true,
  fenced: () => undefined,
};

/** A cluster node's gate of one company: its lease as the keeper holds it. */
export function leaseGate(keeper: LeaseKeeper, alias: string): CompanyGate {
  return {
    held: () => keeper.epochOf(alias) !== undefined,
    open: () => keeper.mayStart(alias),
    fenced: () => keeper.fenced(alias),
  };
}
