/**
 * What the lease keeper (lease-keeper.ts) is given and what it tells: its options and the callbacks that
 * turn a gained or lost company into work for the pipeline.
 */
import type { SqlExecutor } from '../ledger/sql/executor.js';
import type { AppLogger } from '../log/logger.js';
import type { NodeIdentity } from './membership.js';

/** Why a company stops here: lost (taken or fenced: stop at once), handed back to another node, or this node stops. */
export type LeaseEnd = 'lost' | 'handback' | 'stop';

export interface LeaseEvents {
  /**
   * The company is this node's now, at `epoch`: recover it, start its sender, rescan its inbox. Its last
   * owner may have started a request as late as `lastStartMs` from the claim (lease-store.ts, the quiet
   * rule; -Infinity: it never had one): no request of this node for it may start before one rate window
   * past that.
   */
  gained(company: string, epoch: number, lastStartMs: number): Promise<void>;
  /** Stop the company's parts; for 'handback' wait until its in-flight verdicts are committed (the lease is released after). */
  ended(company: string, why: LeaseEnd): Promise<void>;
  /**
   * How long the company has had no request in flight here (its rate: `CompanyRates.quietForMs`), told to
   * the next owner at a release. @defaultValue 0 (quiet from the release on)
   */
  quietForMs?(company: string): number;
}

export interface LeaseKeeperOptions {
  db: SqlExecutor;
  me: NodeIdentity;
  leaseMs: number;
  /** The configured companies (read at every beat: a reload may change them). */
  companies(): readonly string[];
  logger: AppLogger;
  events: LeaseEvents;
  /** @defaultValue leaseMs / 3 */
  heartbeatMs?: number;
  /** Share of leaseMs since the last renewal after which no new request starts. @defaultValue 0.75 */
  safeShare?: number;
  /** Monotonic milliseconds (tests). @defaultValue performance.now */
  monotonic?(): number;
  /**
   * The company's identity as configured here (company-identity.ts, identityText), its key fingerprinted
   * under `salt`; undefined: not checked (tests of the leases alone).
   */
  identity?(company: string, salt: string): Promise<string | undefined>;
}
