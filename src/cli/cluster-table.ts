/**
 * The cluster's part of `edoc-bridge status` (ledger.url): every node with its last heartbeat, and every
 * company's lease — who holds it, at which epoch, until when. Ages are the database's clock, so a node
 * whose own clock is off does not make the table lie.
 */
import type { ClusterStatus } from '../cluster/cluster-node.js';
import type { Config } from '../config/schema.js';
import { renderTable } from './table.js';

/** Reads the nodes and leases from the PostgreSQL ledger; undefined without ledger.url. */
export async function readClusterStatus(
  config: Pick<Config, 'ledger' | 'cluster'>,
): Promise<ClusterStatus | undefined> {
  const url = config.ledger?.url;
  if (url === undefined) return undefined;
  // loaded only here: a command on the SQLite ledger never loads node-postgres
  const [{ clusterStatus }, { openPostgresExecutor }] = await Promise.all([
    import('../cluster/cluster-node.js'),
    import('../ledger/sql/postgres.js'),
  ]);
  const db = openPostgresExecutor(url, {
    maxConnections: 1,
    applicationName: 'edoc-bridge status',
  });
  try {
    // a database never migrated (status before the first node started) has no cluster yet
    const migrated = await db.get<{ t: string | null }>(
      `SELECT to_regclass('company_leases')::text AS t`,
    );
    if (migrated?.t == null) return { nodes: [], leases: [] };
    return await clusterStatus(db, config.cluster.leaseMs);
  } finally {
    await db.close();
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function clusterLines(status: ClusterStatus): string[] {
  const live = status.nodes.filter((n) => n.live).length;
  const out = [`Cluster: ${live} live node(s) of ${status.nodes.length} known`];
  if (status.nodes.length > 0) {
    out.push(
      ...renderTable(status.nodes, [
        { header: 'node', value: (n) => n.name },
        { header: 'host', value: (n) => `${n.host} (pid ${n.pid})` },
        { header: 'version', value: (n) => n.version },
        {
          header: 'state',
          value: (n) => (n.stoppedAt !== null ? 'stopped' : n.live ? 'live' : 'silent'),
        },
        {
          header: 'last heartbeat',
          value: (n) => `${seconds(n.heartbeatAgeMs)} ago`,
          align: 'right',
        },
        {
          header: 'companies',
          value: (n) =>
            status.leases
              .filter((l) => l.owner === n.name && l.live)
              .map((l) => l.company)
              .join(', '),
        },
      ]),
    );
  }
  for (const n of status.nodes) {
    if (n.disagrees !== null)
      out.push(`  EDOC_CLUSTER_COMPANY_MISMATCH: node ${n.name} does not take ${n.disagrees}`);
  }
  if (status.leases.length > 0) {
    out.push('');
    out.push(
      ...renderTable(status.leases, [
        { header: 'company', value: (l) => l.company },
        {
          header: 'owner',
          value: (l) => (l.owner === null ? '(free)' : l.live ? l.owner : `${l.owner} (expired)`),
        },
        { header: 'epoch', value: (l) => String(l.epoch), align: 'right' },
        {
          header: 'expires in',
          value: (l) => (l.owner === null ? '' : seconds(l.expiresInMs)),
          align: 'right',
        },
      ]),
    );
  }
  return out;
}
