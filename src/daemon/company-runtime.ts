/**
 * Which companies this process runs — sends for, recovers, reports, pulls and watches — and what starts
 * and stops with each. With the SQLite ledger one process runs every company from the start. With
 * `ledger.url` the process is a node of a cluster (cluster/): it runs the companies whose lease it holds,
 * each started when its lease is taken (its last owner's `sending` documents recovered first, as a
 * restart would) and stopped when the lease is handed over (drained first) or lost (at once).
 */
import type { CompanyConfig, Config } from '../config/schema.js';
import type { ClusterNode } from '../cluster/cluster-node.js';
import type { LeaseEnd, LeaseEvents } from '../cluster/lease-keeper.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AppLogger } from '../log/logger.js';
import type { CompanyRates } from '../rate/company-rate.js';
import { recoverSending } from './recover.js';
import type { Senders } from './senders.js';

/** How long a company's sender may finish its requests when its lease is lost (their verdicts are refused anyway). */
const LOST_DRAIN_MS = 1_000;

/** What the runtime starts and stops of a company (the pipeline's parts). */
export interface CompanyParts {
  ledger: LedgerPort;
  logger: AppLogger;
  senders: Senders;
  /** Each company's one rate: a company taken over is held quiet there first. */
  rates: CompanyRates;
  reports: { touch(fileId: number): void };
  /** The company when it is configured and this pipeline sends for it. */
  company(alias: string): CompanyConfig | undefined;
  stopping(): boolean;
  drainMs: number | undefined;
}

export class CompanyRuntime implements LeaseEvents {
  private readonly gainedListeners: ((company: string) => void)[] = [];
  private parts: CompanyParts | undefined;
  /** What recovery found left `sending` (at start; in a cluster, summed over the companies taken). */
  recovered = { resent: 0, inDoubt: 0 };

  /** Cluster mode (ledger.url): this node; undefined with the SQLite ledger. */
  readonly cluster: ClusterNode | undefined;

  private constructor(cluster: (events: LeaseEvents) => ClusterNode | undefined) {
    this.cluster = cluster(this);
  }

  /**
   * For the configuration: a cluster node with `ledger.url`, else one process running everything. Nothing
   * connects yet; the cluster's modules (and node-postgres) are loaded only with `ledger.url`.
   */
  static async for(
    config: Readonly<Config>,
    logger: AppLogger,
    companies: () => readonly CompanyConfig[],
  ): Promise<CompanyRuntime> {
    const url = config.ledger?.url;
    if (url === undefined) return new CompanyRuntime(() => undefined);
    const { ClusterNode: Node } = await import('../cluster/cluster-node.js');
    return new CompanyRuntime(
      (events) =>
        new Node({
          url,
          inbox: config.paths.inbox,
          node: config.cluster.node,
          leaseMs: config.cluster.leaseMs,
          logger,
          companies: () => companies().map((c) => c.alias),
          company: (alias) => companies().find((c) => c.alias === alias),
          events,
        }),
    );
  }

  /** Starts the companies: all of them now (one process), or whichever leases the first heartbeat takes (cluster). */
  async start(parts: CompanyParts, all: readonly CompanyConfig[]): Promise<void> {
    this.parts = parts;
    if (this.cluster !== undefined) {
      await this.cluster.start();
      return;
    }
    this.recovered = await recoverSending(parts.ledger, parts.logger);
    for (const file of [
      ...(await parts.ledger.filesToSettle()),
      ...(await parts.ledger.openFiles()),
    ])
      parts.reports.touch(file.id);
    for (const company of all)
      if (parts.company(company.alias) !== undefined) parts.senders.start(company);
  }

  /** Whether this process runs the company now: always with one process; in a cluster, while it holds the lease. */
  owns(alias: string): boolean {
    return this.cluster === undefined || this.cluster.keeper.epochOf(alias) !== undefined;
  }

  /** Cluster mode: whether a new request may start for the company now (the lease renewed recently enough). */
  mayStart(alias: string): boolean {
    return this.cluster === undefined || this.cluster.keeper.mayStart(alias);
  }

  /** Cluster mode: a commit of the company was refused by the fence: drop it now. */
  fenced(alias: string): void {
    this.cluster?.keeper.fenced(alias);
  }

  /** Called with each company this node takes over (cluster mode): the daemon takes its inbox files again. */
  onGained(listener: (company: string) => void): void {
    this.gainedListeners.push(listener);
  }

  /**
   * The company's lease was taken: hold its rate quiet until a window after its last owner's last
   * possible request (`lastStartMs` from the claim), recover what that owner left `sending`, settle and
   * report its files, start its sender — before any request of this node for the company.
   */
  async gained(alias: string, _epoch: number, lastStartMs: number): Promise<void> {
    const parts = this.parts;
    if (parts === undefined || parts.stopping()) return;
    parts.rates.tookOver(alias, lastStartMs);
    const { ledger, logger } = parts;
    const recovered = await recoverSending(ledger, logger, alias);
    this.recovered = {
      resent: this.recovered.resent + recovered.resent,
      inDoubt: this.recovered.inDoubt + recovered.inDoubt,
    };
    for (const file of [...(await ledger.filesToSettle(alias)), ...(await ledger.openFiles(alias))])
      parts.reports.touch(file.id);
    if (parts.stopping() || !this.owns(alias)) return;
    const company = parts.company(alias);
    if (company !== undefined) parts.senders.start(company);
    for (const listener of this.gainedListeners) listener(alias);
  }

  /**
   * The company is no longer this node's: handed over (drained) or lost (stopped at once). Its reports are
   * not written here: the next owner settles and reports every open file of the company when it takes it
   * (`gained`), and a flush here would write every company's due reports before the lease is released,
   * holding the hand-over up for seconds on a large ledger.
   */
  async ended(alias: string, why: LeaseEnd): Promise<void> {
    const parts = this.parts;
    if (parts === undefined) return;
    await parts.senders.stop(alias, why === 'lost' ? LOST_DRAIN_MS : parts.drainMs);
  }

  /** How long the company has had no request in flight here: a lease released tells its next owner. */
  quietForMs(alias: string): number {
    return this.parts?.rates.quietForMs(alias) ?? 0;
  }

  /** No more companies taken (the pipeline stops); those held stay renewed until close(). */
  quiesce(): void {
    this.cluster?.keeper.quiesce();
  }

  /** Cluster: releases every lease at once and leaves. Idempotent. */
  async close(): Promise<void> {
    await this.cluster?.close();
  }
}
