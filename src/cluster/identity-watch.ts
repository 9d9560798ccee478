/**
 * The lease keeper's side of the company identity rule (company-identity.ts): this node's identity of each
 * configured company (its key fingerprinted under the company's salt, read once per company), and the
 * companies it does not claim because a live node recorded another identity for them (or this node's id of
 * one for another alias: one company under two aliases): one error line per
 * company and recorded identity (EDOC_CLUSTER_COMPANY_MISMATCH, naming the fields, never a key), an info
 * line when it agrees again, and the list in this node's row (nodes.disagrees) for `status`.
 */
import type { SqlExecutor } from '../ledger/sql/executor.js';
import type { AppLogger } from '../log/logger.js';
import { describeDifferences } from './company-identity.js';
import {
  leaseSalts,
  recordDisagreements,
  refusedCompanies,
  type RefusedCompany,
} from './lease-store.js';

export class IdentityWatch {
  private readonly salts = new Map<string, string>();
  /** Company → the recorded identity it was refused for (logged once per change). */
  private readonly refused = new Map<string, string>();
  private recorded: string | null = null;

  constructor(
    private readonly db: SqlExecutor,
    private readonly node: string,
    private readonly leaseMs: number,
    private readonly logger: AppLogger,
    private readonly identity:
      ((company: string, salt: string) => Promise<string | undefined>) | undefined,
  ) {}

  /** This node's identity of each configured company (empty without an identity function). */
  async read(companies: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (this.identity === undefined) return out;
    const missing = companies.filter((c) => !this.salts.has(c));
    if (missing.length > 0)
      for (const [c, salt] of await leaseSalts(this.db, missing)) this.salts.set(c, salt);
    for (const company of companies) {
      const salt = this.salts.get(company);
      if (salt === undefined) continue;
      const text = await this.identity(company, salt);
      if (text !== undefined) out.set(company, text);
    }
    return out;
  }

  /** Which companies (not held here) a live node recorded another identity for: logged, and recorded for status. */
  async check(mine: ReadonlyMap<string, string>, held: ReadonlySet<string>): Promise<void> {
    if (mine.size === 0) return;
    const refused = (await refusedCompanies(this.db, this.node, mine, this.leaseMs)).filter(
      (r) => !held.has(r.company),
    );
    const now = new Map(refused.map((r) => [r.company, r]));
    for (const r of refused) {
      if (this.refused.get(r.company) === r.recorded) continue;
      this.refused.set(r.company, r.recorded);
      this.logger.error(
        {
          code: 'EDOC_CLUSTER_COMPANY_MISMATCH',
          node: this.node,
          company: r.company,
          recordedBy: r.recordedBy,
          differs: differs(mine.get(r.company) as string, r),
        },
        r.sameIdAs === undefined
          ? `cluster: company ${r.company} is configured differently here than on node ${r.recordedBy}, which runs it: not taken while it runs`
          : `cluster: company ${r.company} has here the id node ${r.recordedBy} runs ${r.sameIdAs} under: not taken while it runs`,
      );
    }
    for (const company of [...this.refused.keys()]) {
      if (now.has(company)) continue;
      this.refused.delete(company);
      this.logger.info(
        { node: this.node, company },
        'cluster: no live node disagrees on the company any more: it may be taken here',
      );
    }
    const text =
      refused.length === 0
        ? null
        : refused
            .map(
              (r) =>
                `${r.company}: ${differs(mine.get(r.company) as string, r)} (recorded by ${r.recordedBy})`,
            )
            .join(' | ');
    if (text !== this.recorded) {
      await recordDisagreements(this.db, this.node, text);
      this.recorded = text;
    }
  }
}

/** The fields that differ, or the alias a live node runs under this node's id of the company. */
function differs(mine: string, r: RefusedCompany): string {
  if (r.sameIdAs === undefined) return describeDifferences(mine, r.recorded);
  const id = (JSON.parse(mine) as { id?: unknown }).id;
  return `id ${String(id)} here is company ${r.sameIdAs}'s id`;
}
