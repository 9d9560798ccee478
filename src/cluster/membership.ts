/**
 * A node's row in `nodes`: who it is (name, host, pid, version), when this run started, its last
 * heartbeat and, after a graceful stop, when it stopped. The database's clock throughout. A node is
 * live while its heartbeat is younger than leaseMs and it has not stopped: the fair share of companies
 * (lease-keeper.ts) divides by the live nodes.
 */
import os from 'node:os';
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
}

/** This process as a node: `cluster.node`, else host name and pid (unique per machine and run). */
export function nodeIdentity(configured: string | undefined, version: string): NodeIdentity {
  const host = os.hostname();
  return { name: configured ?? `${host}-${process.pid}`, host, pid: process.pid, version };
}

/**
 * What the last run under this name left: `dead` when it stopped gracefully, its heartbeat is older than
 * `leaseMs`, or it ran on this host under a pid that no longer exists — then this run may take back its
 * leases at once instead of waiting for them to expire (a restart after a crash).
 */
export type Predecessor = 'none' | 'dead' | 'maybe-alive';

/**
 * Registers this run (a new row, or the name's row started again) and says what it found of the last
 * run under the same name.
 */
export async function registerNode(db: SqlExecutor, me: NodeIdentity, leaseMs: number): Promise<Predecessor> {
  return db.transaction(async (tx) => {
    const before = await tx.get<{ host: string; pid: number; stopped: boolean; fresh: boolean }>(
      `SELECT host, pid, stopped_at IS NOT NULL AS stopped, heartbeat_at > now() - ?::double precision * interval '1 millisecond' AS fresh
       FROM nodes WHERE name = ? FOR UPDATE`, [leaseMs, me.name]);
    await tx.run(`
      INSERT INTO nodes(name, host, pid, version, started_at, heartbeat_at, stopped_at) VALUES (?, ?, ?, ?, now(), now(), NULL)
      ON CONFLICT (name) DO UPDATE SET host = excluded.host, pid = excluded.pid, version = excluded.version,
        started_at = now(), heartbeat_at = now(), stopped_at = NULL`, [me.name, me.host, me.pid, me.version]);
    if (before === undefined) return 'none';
    if (before.stopped || !before.fresh) return 'dead';
    if (before.host === me.host && (before.pid === me.pid || !processAlive(before.pid))) return 'dead';
    return 'maybe-alive';
  });
}

/**
 * The heartbeat: this node is alive now. Returns how many nodes are live, this one included, or
 * undefined when its row is gone (deleted by an operator: register again).
 */
export async function heartbeat(db: SqlExecutor, name: string, leaseMs: number): Promise<number | undefined> {
  // one statement, one round trip; the UPDATE is not visible to the count in the same statement, so the
  // others are counted and this node added
  const row = await db.get<{ found: number; others: number }>(`
    WITH me AS (UPDATE nodes SET heartbeat_at = now(), stopped_at = NULL WHERE name = ? RETURNING name)
    SELECT (SELECT count(*) FROM me) AS found,
      (SELECT count(*) FROM nodes WHERE name <> ? AND stopped_at IS NULL
        AND heartbeat_at > now() - ?::double precision * interval '1 millisecond') AS others`, [name, name, leaseMs]);
  if (row === undefined || row.found === 0) return undefined;
  return row.others + 1;
}

/** A graceful stop: not live any more, at once (the others stop counting it in their fair share). */
export async function markStopped(db: SqlExecutor, name: string): Promise<void> {
  await db.run('UPDATE nodes SET stopped_at = now() WHERE name = ?', [name]);
}

/** Every node, live ones first (status). */
export async function listNodes(db: SqlExecutor, leaseMs: number): Promise<NodeRow[]> {
  const rows = await db.all<{ name: string; host: string; pid: number; version: string; started_at: Date; heartbeat_at: Date;
    stopped_at: Date | null; live: boolean; age_ms: number }>(`
    SELECT name, host, pid, version, started_at, heartbeat_at, stopped_at,
      (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint AS age_ms,
      stopped_at IS NULL AND heartbeat_at > now() - ?::double precision * interval '1 millisecond' AS live
    FROM nodes ORDER BY live DESC, name`, [leaseMs]);
  return rows.map((r) => ({ name: r.name, host: r.host, pid: r.pid, version: r.version, startedAt: r.started_at,
    heartbeatAt: r.heartbeat_at, stoppedAt: r.stopped_at, live: r.live, heartbeatAgeMs: r.age_ms }));
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
