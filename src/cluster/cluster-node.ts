/**
 * This process as a node of a cluster: its own small connection pool to the ledger's database (so a
 * heartbeat never waits behind the ledger's busy connections), the lease keeper, and the fence the ledger
 * checks in its write transactions. Opened by the wiring (root/open-pipeline.ts) when `ledger.url` is set.
 */
import { readFileSync } from 'node:fs';
import type { CompanyConfig } from '../config/schema.js';
import type { SqlExecutor } from '../ledger/sql/executor.js';
import { openPostgresExecutor } from '../ledger/sql/postgres.js';
import type { AppLogger } from '../log/logger.js';
import { companyIdentity, identityText } from './company-identity.js';
import { ClusterFence } from './fence.js';
import { LeaseKeeper, type LeaseEvents } from './lease-keeper.js';
import { LeaseNotices } from './lease-notices.js';
import { idsRecordedByOthers, listLeases, type LeaseRow, type RecordedId } from './lease-store.js';
import { listNodes, nodeIdentity, type NodeRow } from './membership.js';

export interface ClusterNodeOptions {
  /** The ledger's URL (the cluster's tables live in the ledger's database). */
  url: string;
  /** paths.inbox: file claims name files relative to it. */
  inbox: string;
  /** cluster.node; host name and pid when absent. */
  node?: string | undefined;
  leaseMs: number;
  companies(): readonly string[];
  /** The company as configured now (its identity is recorded with its lease and compared: company-identity.ts). */
  company?(alias: string): Pick<CompanyConfig, 'id' | 'nit' | 'apiKey' | 'rate'> | undefined;
  logger: AppLogger;
  events: LeaseEvents;
}

/** `edoc-bridge NODE`: what pg_stat_activity shows for every connection of a node (ledger and cluster). */
export function applicationName(node: string): string {
  return `edoc-bridge ${node}`.slice(0, 63);
}

export class ClusterNode {
  readonly keeper: LeaseKeeper;
  readonly fence: ClusterFence;
  /**
   * For every connection of this node: the server ends a session idle inside a transaction for half a
   * lease, so a node frozen mid-transaction (SIGSTOP, a paused VM) releases its row locks before its
   * lease expires, and the node taking over is not held up by them (a claim skips locked rows).
   */
  readonly idleInTransactionTimeoutMs: number;
  private readonly db: SqlExecutor;
  private readonly notices: LeaseNotices;
  private readonly leaseMs: number;
  private closing: Promise<void> | undefined;

  constructor(options: ClusterNodeOptions) {
    const me = nodeIdentity(options.node, programVersion());
    this.leaseMs = options.leaseMs;
    this.idleInTransactionTimeoutMs = Math.max(500, Math.floor(options.leaseMs / 2));
    this.db = openPostgresExecutor(options.url, {
      maxConnections: 2,
      applicationName: applicationName(me.name),
      connectTimeoutMs: Math.max(1_000, Math.floor(options.leaseMs / 3)),
      idleInTransactionTimeoutMs: this.idleInTransactionTimeoutMs,
      onIdleError: (err) =>
        options.logger.debug({ err, node: me.name }, 'cluster: an idle connection ended'),
    });
    this.keeper = new LeaseKeeper({
      db: this.db,
      me,
      leaseMs: options.leaseMs,
      companies: options.companies,
      logger: options.logger,
      events: options.events,
      identity: async (alias, salt) => {
        const company = options.company?.(alias);
        // one company configured: inbox/<kind>/; several: inbox/<alias>/<kind>/ (intake/folders.ts)
        const folder = options.companies().length > 1 ? alias : '';
        return company === undefined
          ? undefined
          : identityText(await companyIdentity(company, salt, folder));
      },
    });
    this.fence = new ClusterFence(this.keeper, options.inbox);
    this.notices = new LeaseNotices({
      url: options.url,
      applicationName: applicationName(me.name),
      node: me.name,
      retryMs: Math.max(1_000, Math.floor(options.leaseMs / 3)),
      logger: options.logger,
      onReleased: () => this.keeper.beatSoon(),
      onListeningAgain: () => this.keeper.beatSoon(),
    });
  }

  get name(): string {
    return this.keeper.node;
  }

  /** What pg_stat_activity shows for this node's connections (the ledger's too). */
  get applicationName(): string {
    return applicationName(this.keeper.node);
  }

  /** Joins (the first heartbeat claims this node's first companies), then listens for leases others release. */
  async start(): Promise<void> {
    await this.keeper.start();
    this.notices.start();
  }

  /** Each company's id as recorded with its lease by another live node (a reload's check: daemon/company-change.ts). */
  idsRecordedByOthers(): Promise<RecordedId[]> {
    return idsRecordedByOthers(this.db, this.keeper.node, this.leaseMs);
  }

  /** Releases every lease (after the pipeline drained), marks the node stopped, closes its connections. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.notices
      .close()
      .then(() => this.keeper.close())
      .finally(() => this.db.close());
    return this.closing;
  }
}

/** What `status` shows of the cluster: every node and every lease. */
export interface ClusterStatus {
  nodes: NodeRow[];
  leases: LeaseRow[];
}

export async function clusterStatus(db: SqlExecutor, leaseMs: number): Promise<ClusterStatus> {
  return { nodes: await listNodes(db, leaseMs), leases: await listLeases(db) };
}

function programVersion(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
