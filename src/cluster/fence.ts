/**
 * The database side of fencing (the ledger's LedgerFence): inside a pipeline write transaction, for each
 * company it touches, the lease must still be this node's, at the epoch it claimed, and not expired — by
 * the database's clock, whatever this node's clock or state says. Otherwise EDOC_CLUSTER_FENCED and the
 * transaction rolls back: a node that was paused or cut off past its lease never commits a mark or a
 * verdict for a company another node may own now.
 *
 * FOR SHARE keeps the row until the transaction ends: a take-over (claim: FOR UPDATE SKIP LOCKED) skips
 * a lease with a commit in flight, and a renewal waits for it, so no commit of the old owner lands after
 * the new owner's recovery has read the company's documents.
 */
import { EdocError } from '../errors.js';
import type { LedgerFence } from '../ledger/port.js';
import type { SqlExecutor } from '../ledger/sql/executor.js';
import { attachClaim, claimFile, relativeInboxPath } from './file-claims.js';

/** Which epoch of a company this node holds now; undefined when it does not hold it. */
export interface LeaseView {
  readonly node: string;
  epochOf(company: string): number | undefined;
}

export class ClusterFence implements LedgerFence {
  /** `inbox`: paths.inbox, to which claimed paths are relative (nodes may mount the shared folder elsewhere). */
  constructor(
    private readonly leases: LeaseView,
    private readonly inbox = '/',
  ) {}

  async check(tx: SqlExecutor, company: string): Promise<void> {
    const epoch = this.leases.epochOf(company);
    if (epoch !== undefined) {
      const row = await tx.get(
        `SELECT 1 AS ok FROM company_leases
        WHERE company = ? AND owner = ? AND epoch = ? AND expires_at > now() FOR SHARE`,
        [company, this.leases.node, epoch],
      );
      if (row !== undefined) return;
    }
    throw new EdocError(
      'EDOC_CLUSTER_FENCED',
      `This node (${this.leases.node}) does not hold the lease of company ${company} now: the commit is refused and the company is left to its owner.`,
      { company, node: this.leases.node, ...(epoch === undefined ? {} : { epoch }) },
    );
  }

  /**
   * The ledger calls it in recordFile's transaction, after check(): this node's claim of the file at the
   * epoch it holds the company, with the file's row. A claim recorded earlier (a resumed file, the same
   * content dropped again under the same name) stays as it is.
   */
  async claimFile(
    tx: SqlExecutor,
    file: { path: string; sha256: string; company: string },
    fileId: number,
  ): Promise<void> {
    const epoch = this.leases.epochOf(file.company);
    if (epoch === undefined) return; // check() refused already
    const claim = {
      path: relativeInboxPath(this.inbox, file.path),
      sha256: file.sha256,
      company: file.company,
    };
    const result = await claimFile(tx, this.leases.node, epoch, claim);
    if (result.claimed) await attachClaim(tx, claim, fileId);
  }
}

/** Whether `err` is the fence's refusal (the sender then treats the company as lost). */
export function isFenced(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'EDOC_CLUSTER_FENCED';
}
