/**
 * A node's row in `nodes`: who it is (name, host, pid, version), when this run started, its last
 * heartbeat and, after a graceful stop, when it stopped. The database's clock throughout. A node is
 * live while its heartbeat is younger than leaseMs and it has not stopped: the fair share of companies
 * (lease-keeper.ts) divides by the live nodes.
 */
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { EdocError } from '../errors.js';
import type { AppLogger } from '../log/logger.js';
import type { SqlExecutor } from '../ledger/sql/executor.js';

export interface NodeIdentity {
  name: string;
  host: string;
  pid: number;
  version: string;
}

/** A row of `nodes` as `status` shows it. */
export interface NodeRow extends NodeIdentity {
  startedAt: Date;
  heartbeatAt: Date;
  stoppedAt: Date | null;
  /** Heartbeat younger than leaseMs and not stopped. */
  live: boolean;
  /** How long ago the last heartbeat was, by the database's clock. */
  heartbeatAgeMs: number;
  /** The companies it does not take because a live node recorded another identity for them, and why (identity-watch.ts). */
  disagrees: string | null;
}

/** This process as a node: `cluster.node`, else host name and pid (unique per machine and run). */
export function nodeIdentity(configured: string | undefined, version: string): NodeIdentity {
  const host = os.hostname();
  return { name: configured ?? `${host}-${process.pid}`, host, pid: process.pid, version };
}

/**
 * What the last run under this name left: `none` (a new name), `dead` when it stopped gracefully, its
 * heartbeat is older than `leaseMs`, or it ran on this host under a pid that no longer exists — then this
 * run may take back its leases at once instead of waiting for them to expire (a restart after a crash) —
 * or `in-use`: a run on another host, or a live pid here, beat less than `leaseMs` ago. An `in-use` name
 * is NOT registered: two processes under one name would count as one node, stop each other's row and take
 * each other's leases back "at once" (see registerNode's callers).
 */
export type Predecessor = 'none' | 'dead' | 'in-use';

/** The run holding the name now, as registerNode found it (only for `in-use`). */
export interface NameHolder {
  host: string;
  pid: number;
  heartbeatAt: Date;
}

/**
 * Registers this run (a new row, or the name's row started again) unless a live run holds the name, and
 * says what it found. The INSERT comes first so two runs registering a new name at once serialise on the
 * row (the second sees the first's row, fresh, and gets `in-use`).
 */
export async function registerNode(
  db: SqlExecutor,
  me: NodeIdentity,
  leaseMs: number,
): Promise<{ before: Predecessor; holder?: NameHolder }> {
  return db.transaction(async (tx) => {
    const inserted = await tx.get(
      `INSERT INTO nodes(name, host, pid, version, started_at, heartbeat_at, stopped_at)
      VALUES (?, ?, ?, ?, now(), now(), NULL) ON CONFLICT (name) DO NOTHING RETURNING 1 AS ok`,
      [me.name, me.host, me.pid, me.version],
    );
    if (inserted !== undefined) return { before: 'none' as const };
    const row = await tx.get<{
      host: string;
      pid: number;
      stopped: boolean;
      fresh: boolean;
      heartbeat_at: Date;
    }>(
      `SELECT host, pid, stopped_at IS NOT NULL AS stopped, heartbeat_at, heartbeat_at > now() - ?::double precision * interval '1 millisecond' AS fresh
       FROM nodes WHERE name = ? FOR UPDATE`,
      [leaseMs, me.name],
    );
    const dead =
      row === undefined ||
      row.stopped ||
      !row.fresh ||
      (row.host === me.host && (row.pid === me.pid || !processAlive(row.pid)));
    if (!dead)
      return {
        before: 'in-use' as const,
        holder: { host: row.host, pid: row.pid, heartbeatAt: row.heartbeat_at },
      };
    await tx.run(
      `UPDATE nodes SET host = ?, pid = ?, version = ?, started_at = now(), heartbeat_at = now(), stopped_at = NULL
      WHERE name = ?`,
      [me.host, me.pid, me.version, me.name],
    );
    return { before: 'dead' as const };
  });
}

/**
 * The heartbeat: this run is alive now. Returns how many nodes are live, this one included, or undefined
 * when its row is gone or belongs to another run now (deleted by an operator: register again; taken by a
 * later run under the same name while this one was frozen: this one must stand down).
 */
export async function heartbeat(
  db: SqlExecutor,
  me: Pick<NodeIdentity, 'name' | 'host' | 'pid'>,
  leaseMs: number,
): Promise<number | undefined> {
  // one statement, one round trip; the UPDATE is not visible to the count in the same statement, so the
  // others are counted and this node added
  const row = await db.get<{ found: number; others: number }>(
    `
    WITH me AS (UPDATE nodes SET heartbeat_at = now(), stopped_at = NULL WHERE name = ? AND host = ? AND pid = ? RETURNING name)
    SELECT (SELECT count(*) FROM me) AS found,
      (SELECT count(*) FROM nodes WHERE name <> ? AND stopped_at IS NULL
        AND heartbeat_at > now() - ?::double precision * interval '1 millisecond') AS others`,
    [me.name, me.host, me.pid, me.name, leaseMs],
  );
  if (row === undefined || row.found === 0) return undefined;
  return row.others + 1;
}

/** A graceful stop: not live any more, at once (the others stop counting it in their fair share). */
export async function markStopped(
  db: SqlExecutor,
  me: Pick<NodeIdentity, 'name' | 'host' | 'pid'>,
): Promise<void> {
  // only this run's row: a later run under the name (this one was frozen meanwhile) is not stopped by it
  await db.run('UPDATE nodes SET stopped_at = now() WHERE name = ? AND host = ? AND pid = ?', [
    me.name,
    me.host,
    me.pid,
  ]);
}

/** Every node, live ones first (status). */
export async function listNodes(db: SqlExecutor, leaseMs: number): Promise<NodeRow[]> {
  const rows = await db.all<{
    name: string;
    host: string;
    pid: number;
    version: string;
    started_at: Date;
    heartbeat_at: Date;
    stopped_at: Date | null;
    live: boolean;
    age_ms: number;
    disagrees: string | null;
  }>(
    `
    SELECT name, host, pid, version, started_at, heartbeat_at, stopped_at, disagrees,
      (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint AS age_ms,
      stopped_at IS NULL AND heartbeat_at > now() - ?::double precision * interval '1 millisecond' AS live
    FROM nodes ORDER BY live DESC, name`,
    [leaseMs],
  );
  return rows.map((r) => ({
    name: r.name,
    host: r.host,
    pid: r.pid,
    version: r.version,
    startedAt: r.started_at,
    heartbeatAt: r.heartbeat_at,
    stoppedAt: r.stopped_at,
    live: r.live,
    heartbeatAgeMs: r.age_ms,
    disagrees: r.live ? r.disagrees : null,
  }));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is only not ours to signal
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Registers this run under its name. A name whose last run may still be alive (fresh heartbeat, another
 * host or a live pid here) is watched for up to two leases: when that run beats meanwhile it is alive and
 * this one is refused (EDOC_CLUSTER_NODE_IN_USE: two runs under one name would count as one node and a
 * restart of either would take the other's leases back without waiting for them to expire); when its
 * heartbeat ends instead, it was a crash elsewhere and this run takes the name.
 */
export async function registerRun(
  db: SqlExecutor,
  me: NodeIdentity,
  leaseMs: number,
  logger: AppLogger,
  clock: { monotonic(): number; pollMs: number },
): Promise<Predecessor> {
  const deadline = clock.monotonic() + 2 * leaseMs;
  let seen: number | undefined;
  for (;;) {
    const { before, holder } = await registerNode(db, me, leaseMs);
    if (before !== 'in-use' || holder === undefined) return before;
    const at = holder.heartbeatAt.getTime();
    if ((seen !== undefined && at !== seen) || clock.monotonic() > deadline) {
      throw new EdocError(
        'EDOC_CLUSTER_NODE_IN_USE',
        `Another running process (host ${holder.host}, pid ${holder.pid}) is cluster node ${me.name}: give each node its own cluster.node.`,
        { node: me.name, host: holder.host, pid: holder.pid },
      );
    }
    if (seen === undefined) {
      logger.warn(
        { node: me.name, host: holder.host, pid: holder.pid },
        'cluster: a node of this name beat recently: waiting to see whether it is still running',
      );
    }
    seen = at;
    await sleep(clock.pollMs);
  }
}
