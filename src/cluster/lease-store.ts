/**
 * The SQL of the company leases (table company_leases, pg-migrations.ts step 2), one function per
 * statement, nothing kept in memory: the lease keeper (lease-keeper.ts) decides, this file only asks the
 * database. Every time is the database's clock (now()), never this node's, so nodes whose clocks disagree
 * still agree on when a lease ends. PostgreSQL only: a cluster has no SQLite form.
 *
 * The epoch rule: a company's `epoch` goes up by one every time it changes hands (claim), never on a
 * renewal or a release. A node keeps the epoch it claimed at; renewals and the fence (fence.ts) match on
 * owner AND epoch, so a node that lost the company — even to a later run of itself under the same name —
 * can neither renew nor commit for it again.
 *
 * The quiet rule: `quiet_at` is when the owner starts its last request for the company at the latest —
 * its self-fence point (`quietAfterMs` past a claim or renewal, by the database's clock, which is never
 * earlier than the owner's own count from when it sent the renewal), or the moment it released the
 * lease after draining (every answer in: every arrival before it). A claim returns that moment relative
 * to the claim (`lastStartMs`), so the new owner's first request waits until one rate window past it:
 * the company's requests of both owners do not share a window at the service.
 */
import type { SqlExecutor } from '../ledger/sql/executor.js';
import { LEASE_RELEASED_CHANNEL } from './lease-notices.js';

/** A lease this node holds: the company and the epoch it was claimed at. */
export interface HeldLease {
  company: string;
  epoch: number;
}

/** A lease just claimed. */
export interface ClaimedLease extends HeldLease {
  /**
   * When, in ms from the claim by the database's clock, the last owner started its last request for the
   * company at the latest: negative when that was in the past, -Infinity when the company never had one.
   */
  lastStartMs: number;
}

/** A row of company_leases as `status` shows it. */
export interface LeaseRow {
  company: string;
  owner: string | null;
  epoch: number;
  acquiredAt: Date | null;
  expiresAt: Date;
  /** Whether expires_at is still in the future by the database's clock. */
  live: boolean;
  /** Milliseconds until it expires (negative: expired), by the database's clock. */
  expiresInMs: number;
}

const ms = "?::double precision * interval '1 millisecond'";

/**
 * Another company's lease row (`o`), in force, whose identity, recorded by another node that is live, has
 * the id of `m.identity` for `c.company`: the same company run under two aliases. (A row no one holds, such
 * as a company removed from every configuration or renamed, does not count.) Parameters: this node, leaseMs.
 */
const SAME_ID_ELSEWHERE = `SELECT 1 FROM company_leases AS o JOIN nodes AS n ON n.name = o.identity_node
  WHERE o.company <> c.company AND o.identity IS NOT NULL AND o.identity_node <> ?
    AND o.owner IS NOT NULL AND o.expires_at > now()
    AND n.stopped_at IS NULL AND n.heartbeat_at > now() - ${ms}
    AND (o.identity::json ->> 'id') = (m.identity::json ->> 'id')`;

/** One row per configured company, made once by whichever node comes first (every node has the same list). */
export async function ensureLeaseRows(
  db: SqlExecutor,
  companies: readonly string[],
): Promise<void> {
  if (companies.length === 0) return;
  await db.run(
    'INSERT INTO company_leases(company) SELECT unnest(?::text[]) ON CONFLICT (company) DO NOTHING',
    [companies],
  );
}

/**
 * Takes up to `max` of `companies` that are free (never taken, released) or expired, plus those `mine`
 * lets this node take back at once (a lease of its own name left by a run of it that is known dead).
 * SKIP LOCKED: two nodes claiming at once get different rows, and a row a verdict commit holds FOR SHARE
 * (the fence) is skipped: a take-over never overtakes a verdict in flight. Each taken row's epoch goes up.
 * `quietAfterMs`: this node's self-fence point after a claim or renewal (the quiet rule above).
 */
export async function claimLeases(
  db: SqlExecutor,
  node: string,
  companies: readonly string[],
  max: number,
  leaseMs: number,
  reclaimOwn = false,
  quietAfterMs = leaseMs,
  identities: ReadonlyMap<string, string> = new Map(),
): Promise<ClaimedLease[]> {
  if (max <= 0 || companies.length === 0) return [];
  // the identity rule (company-identity.ts): a company whose recorded identity differs from this node's is
  // not claimed while the node that recorded it is live; a claim records this node's identity
  const rows = await db.all<{ company: string; epoch: number; last_start_ms: number | null }>(
    `
    WITH free AS (
      -- a run of this node's name known to be dead (reclaimOwn) started nothing after its death, before now
      SELECT c.company, c.epoch AS was_epoch, CASE WHEN ? = 1 AND c.owner = ? THEN least(coalesce(c.quiet_at, c.expires_at), now())
        ELSE coalesce(c.quiet_at, c.expires_at) END AS was_quiet, m.identity AS my_identity
      FROM company_leases AS c JOIN unnest(?::text[], ?::text[]) AS m(company, identity) ON m.company = c.company
      WHERE (c.owner IS NULL OR c.expires_at <= now() OR (? = 1 AND c.owner = ?))
        AND (m.identity IS NULL OR c.identity IS NULL OR c.identity = m.identity OR c.identity_node = ?
          OR NOT EXISTS (SELECT 1 FROM nodes AS n WHERE n.name = c.identity_node AND n.stopped_at IS NULL
            AND n.heartbeat_at > now() - ${ms}))
        -- nor while another live node recorded this node's id of it for another alias (one company, two aliases)
        AND (m.identity IS NULL OR NOT EXISTS (${SAME_ID_ELSEWHERE}))
      ORDER BY c.company
      LIMIT ?
      FOR UPDATE OF c SKIP LOCKED
    )
    UPDATE company_leases AS l
    SET owner = ?, epoch = l.epoch + 1, acquired_at = now(), expires_at = now() + ${ms}, quiet_at = now() + ${ms},
      identity = coalesce(free.my_identity, l.identity),
      identity_node = CASE WHEN free.my_identity IS NULL THEN l.identity_node ELSE ? END
    FROM free WHERE l.company = free.company
    RETURNING l.company, l.epoch,
      CASE WHEN free.was_epoch = 0 THEN NULL ELSE extract(epoch FROM free.was_quiet - now()) * 1000 END AS last_start_ms`,
    [
      reclaimOwn ? 1 : 0,
      node,
      companies,
      companies.map((c) => identities.get(c) ?? null),
      reclaimOwn ? 1 : 0,
      node,
      node,
      leaseMs,
      node,
      leaseMs,
      max,
      node,
      leaseMs,
      quietAfterMs,
      node,
    ],
  );
  return rows.map((r) => ({
    company: r.company,
    epoch: Number(r.epoch),
    lastStartMs:
      r.last_start_ms === null ? Number.NEGATIVE_INFINITY : Math.ceil(Number(r.last_start_ms)),
  }));
}

/**
 * Extends the leases this node holds by `leaseMs` from now. Returns the companies renewed; a held lease
 * missing from the answer is no longer ours (another node took it: owner or epoch changed). A lease that
 * expired but that nobody took is renewed: with its owner and epoch unchanged nobody else has committed
 * for the company meanwhile (a claim raises the epoch), and the fence refused our own commits while it
 * was expired.
 */
export async function renewLeases(
  db: SqlExecutor,
  node: string,
  held: readonly HeldLease[],
  leaseMs: number,
  quietAfterMs = leaseMs,
  identities: ReadonlyMap<string, string> = new Map(),
): Promise<string[]> {
  if (held.length === 0) return [];
  // the holder's identity as configured now (a reload may have changed it) is the one recorded
  const rows = await db.all<{ company: string }>(
    `
    UPDATE company_leases AS l SET expires_at = now() + ${ms}, quiet_at = now() + ${ms},
      identity = coalesce(h.identity, l.identity), identity_node = CASE WHEN h.identity IS NULL THEN l.identity_node ELSE l.owner END
    FROM unnest(?::text[], ?::bigint[], ?::text[]) AS h(company, epoch, identity)
    WHERE l.company = h.company AND l.epoch = h.epoch AND l.owner = ?
    RETURNING l.company`,
    [
      leaseMs,
      quietAfterMs,
      held.map((h) => h.company),
      held.map((h) => h.epoch),
      held.map((h) => identities.get(h.company) ?? null),
      node,
    ],
  );
  return rows.map((r) => r.company);
}

/** The longest quiet time a release reports (a company that never sent here: as good as forever). */
const MAX_QUIET_MS = 3_600_000;

/**
 * Hands leases back at once (a graceful stop, a rebalance): free now, for any node's next claim. Only while
 * still ours. Called once the company's requests have ended (drained): its last request ended `quietForMs`
 * ago at the latest (its answer came then: every arrival was before it), so that is its quiet point — not
 * the release itself, which may come seconds later (reports, other companies' drains). When any was
 * released the other nodes are told at its commit (NOTIFY, lease-notices.ts): they claim at once.
 */
export async function releaseLeases(
  db: SqlExecutor,
  node: string,
  held: readonly HeldLease[],
  quietForMs: (company: string) => number = () => 0,
): Promise<string[]> {
  if (held.length === 0) return [];
  const quiet = held.map((h) =>
    Math.min(MAX_QUIET_MS, Math.max(0, Math.floor(quietForMs(h.company)))),
  );
  // one notice per transaction however many rows (PostgreSQL folds equal notices of one transaction)
  const rows = await db.all<{ company: string }>(
    `
    WITH released AS (
      UPDATE company_leases AS l SET owner = NULL, expires_at = now(),
        quiet_at = least(coalesce(l.quiet_at, now()), now() - h.quiet * interval '1 millisecond')
      FROM unnest(?::text[], ?::bigint[], ?::double precision[]) AS h(company, epoch, quiet)
      WHERE l.company = h.company AND l.epoch = h.epoch AND l.owner = ?
      RETURNING l.company
    )
    SELECT company, pg_notify('${LEASE_RELEASED_CHANNEL}', ?)::text AS notified FROM released`,
    [held.map((h) => h.company), held.map((h) => h.epoch), quiet, node, node],
  );
  return rows.map((r) => r.company);
}

/** Every lease row, by company (status). */
export async function listLeases(db: SqlExecutor): Promise<LeaseRow[]> {
  const rows = await db.all<{
    company: string;
    owner: string | null;
    epoch: number;
    acquired_at: Date | null;
    expires_at: Date;
    live: boolean;
    in_ms: number;
  }>(`SELECT company, owner, epoch, acquired_at, expires_at, expires_at > now() AS live,
      (extract(epoch FROM expires_at - now()) * 1000)::bigint AS in_ms FROM company_leases ORDER BY company`);
  return rows.map((r) => ({
    company: r.company,
    owner: r.owner,
    epoch: r.epoch,
    acquiredAt: r.acquired_at,
    expiresAt: r.expires_at,
    live: r.live,
    expiresInMs: r.in_ms,
  }));
}

/** Each company's salt of its key's fingerprint (made by the database with the row; company-identity.ts). */
export async function leaseSalts(
  db: SqlExecutor,
  companies: readonly string[],
): Promise<Map<string, string>> {
  if (companies.length === 0) return new Map();
  const rows = await db.all<{ company: string; key_salt: string }>(
    'SELECT company, key_salt FROM company_leases WHERE company = ANY(?::text[])',
    [companies],
  );
  return new Map(rows.map((r) => [r.company, r.key_salt]));
}

/**
 * A company this node does not claim: its recorded identity differs, and the node that recorded it is live;
 * or (`sameIdAs`) that node recorded this node's id of it for another alias.
 */
export interface RefusedCompany {
  company: string;
  recorded: string;
  recordedBy: string;
  sameIdAs?: string;
}

export async function refusedCompanies(
  db: SqlExecutor,
  node: string,
  identities: ReadonlyMap<string, string>,
  leaseMs: number,
): Promise<RefusedCompany[]> {
  if (identities.size === 0) return [];
  const rows = await db.all<{ company: string; identity: string; identity_node: string }>(
    `
    SELECT c.company, c.identity, c.identity_node FROM company_leases AS c
      JOIN unnest(?::text[], ?::text[]) AS m(company, identity) ON m.company = c.company
    WHERE c.identity IS NOT NULL AND c.identity <> m.identity AND c.identity_node <> ?
      AND EXISTS (SELECT 1 FROM nodes AS n WHERE n.name = c.identity_node AND n.stopped_at IS NULL AND n.heartbeat_at > now() - ${ms})
    ORDER BY c.company`,
    [[...identities.keys()], [...identities.values()], node, leaseMs],
  );
  const same = await db.all<{ company: string; identity: string; node: string; other: string }>(
    `
    SELECT c.company, o.identity, o.identity_node AS node, o.company AS other FROM company_leases AS c
      JOIN unnest(?::text[], ?::text[]) AS m(company, identity) ON m.company = c.company
      JOIN company_leases AS o ON o.company <> c.company AND o.identity IS NOT NULL AND o.identity_node <> ?
        AND o.owner IS NOT NULL AND o.expires_at > now()
        AND (o.identity::json ->> 'id') = (m.identity::json ->> 'id')
      JOIN nodes AS n ON n.name = o.identity_node AND n.stopped_at IS NULL AND n.heartbeat_at > now() - ${ms}
    ORDER BY c.company, o.company`,
    [[...identities.keys()], [...identities.values()], node, leaseMs],
  );
  return [
    ...rows.map((r) => ({ company: r.company, recorded: r.identity, recordedBy: r.identity_node })),
    ...same
      .filter((r) => !rows.some((d) => d.company === r.company))
      .map((r) => ({
        company: r.company,
        recorded: r.identity,
        recordedBy: r.node,
        sameIdAs: r.other,
      })),
  ];
}

/** A company's id as recorded with its lease, in force, by another node that is live (a reload compares its ids with them). */
export interface RecordedId {
  company: string;
  id: number;
  recordedBy: string;
}

export async function idsRecordedByOthers(
  db: SqlExecutor,
  node: string,
  leaseMs: number,
): Promise<RecordedId[]> {
  const rows = await db.all<{ company: string; identity: string; identity_node: string }>(
    `
    SELECT c.company, c.identity, c.identity_node FROM company_leases AS c
    WHERE c.identity IS NOT NULL AND c.identity_node <> ? AND c.owner IS NOT NULL AND c.expires_at > now()
      AND EXISTS (SELECT 1 FROM nodes AS n WHERE n.name = c.identity_node AND n.stopped_at IS NULL AND n.heartbeat_at > now() - ${ms})
    ORDER BY c.company`,
    [node, leaseMs],
  );
  return rows.flatMap((r) => {
    const id = (JSON.parse(r.identity) as { id?: unknown }).id;
    return typeof id === 'number' ? [{ company: r.company, id, recordedBy: r.identity_node }] : [];
  });
}

/** What `status` shows of the companies a node refuses (nodes.disagrees): set when it changes. */
export async function recordDisagreements(
  db: SqlExecutor,
  node: string,
  text: string | null,
): Promise<void> {
  await db.run('UPDATE nodes SET disagrees = ? WHERE name = ?', [text, node]);
}
