/**
 * What a shared part of the process (the archive watch, the report scheduler, the alerts) may ask of
 * the company runs (company-runs.ts): whether this process runs a company now. Always with one process;
 * in a cluster, while this node holds the company's lease. A shared part that acts for one company at
 * a time filters by it; everything it does for a company another node runs is that node's to do.
 */
export interface CompanyView {
  /** Whether this process runs the company now. */
  owns(alias: string): boolean;
}

/** One process running every company (the SQLite ledger, `edoc-bridge submit`, tests). */
export const EVERY_COMPANY: CompanyView = { owns: () => true };
