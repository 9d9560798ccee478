/**
 * The cluster's leases on a real PostgreSQL (the harness's throwaway server): claim, renew, expiry and
 * epochs by the database's clock; the fence inside a transaction; file claims; and the lease keeper's
 * fair spread, hand-over and stop, several keepers in one process (each its own pool, as separate
 * nodes would have). Processes that freeze or die are in cluster-processes.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ClusterFence } from '../../src/cluster/fence.js';
import { attachClaim, claimFile, relativeInboxPath } from '../../src/cluster/file-claims.js';
import { LeaseKeeper, type LeaseEnd } from '../../src/cluster/lease-keeper.js';
import { LeaseNotices } from '../../src/cluster/lease-notices.js';
import {
  claimLeases,
  ensureLeaseRows,
  listLeases,
  releaseLeases,
  renewLeases,
} from '../../src/cluster/lease-store.js';
import { heartbeat, listNodes, registerNode } from '../../src/cluster/membership.js';
import type { SqlExecutor } from '../../src/ledger/sql/executor.js';
import { migratePostgres } from '../../src/ledger/sql/pg-migrations.js';
import { openPostgresExecutor } from '../../src/ledger/sql/postgres.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import { describePg, usePgDatabase } from '../helpers/postgres.js';

const COMPANIES = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describePg('cluster leases on PostgreSQL', () => {
  const pgDb = usePgDatabase();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'edoc-cluster-'));
  let db: SqlExecutor;
  let logger: AppLogger;
  const opened: SqlExecutor[] = [];
  const keepers: LeaseKeeper[] = [];

  beforeAll(async () => {
    db = openPostgresExecutor(pgDb().url);
    await migratePostgres(db);
    logger = createLogger({ file: path.join(tmp, 'cluster.log'), level: 'debug' });
  });
  afterAll(async () => {
    for (const k of keepers) await k.close();
    for (const e of opened) await e.close();
    await db.close();
    await logger.close();
    rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(async () => {
    for (const k of keepers.splice(0)) await k.close();
    await db.exec('DELETE FROM file_claims; DELETE FROM company_leases; DELETE FROM nodes');
  });

  const node = async (name: string): Promise<void> => {
    await registerNode(db, { name, host: 'test', pid: 1, version: 't' }, 60_000);
  };

  it('a free lease is claimed at epoch 1, renewed by its owner only, and taken by another node only after it expired (epoch 2)', async () => {
    await node('a');
    await node('b');
    await ensureLeaseRows(db, ['c1']);
    expect(await claimLeases(db, 'a', ['c1'], 5, 400)).toEqual([
      { company: 'c1', epoch: 1, lastStartMs: Number.NEGATIVE_INFINITY },
    ]);
    expect(await claimLeases(db, 'b', ['c1'], 5, 400)).toEqual([]);
    expect(await renewLeases(db, 'a', [{ company: 'c1', epoch: 1 }], 400)).toEqual(['c1']);
    expect(await renewLeases(db, 'b', [{ company: 'c1', epoch: 1 }], 400)).toEqual([]);
    // expiry by the database's clock
    await until('the lease to expire', async () => !(await listLeases(db))[0].live);
    expect(await claimLeases(db, 'b', ['c1'], 5, 60_000)).toMatchObject([
      { company: 'c1', epoch: 2 },
    ]);
    // the old owner's renewal finds the epoch changed
    expect(await renewLeases(db, 'a', [{ company: 'c1', epoch: 1 }], 400)).toEqual([]);
    // a release hands it over at once, without an epoch change until the next claim
    expect(await releaseLeases(db, 'b', [{ company: 'c1', epoch: 2 }])).toEqual(['c1']);
    expect(await claimLeases(db, 'a', ['c1'], 5, 60_000)).toMatchObject([
      { company: 'c1', epoch: 3 },
    ]);
  });

  it('a claim tells when the last owner started its last request at the latest: its self-fence point, or its release', async () => {
    await node('a');
    await node('b');
    await ensureLeaseRows(db, ['c1']);
    // never owned: nobody to wait for
    expect(await claimLeases(db, 'a', ['c1'], 1, 60_000, false, 45_000)).toEqual([
      { company: 'c1', epoch: 1, lastStartMs: Number.NEGATIVE_INFINITY },
    ]);
    // released after its drain: its last request ended before the release, a moment ago
    await releaseLeases(db, 'a', [{ company: 'c1', epoch: 1 }]);
    const [afterRelease] = await claimLeases(db, 'b', ['c1'], 1, 60_000, false, 45_000);
    expect(afterRelease.lastStartMs).toBeLessThanOrEqual(0);
    expect(afterRelease.lastStartMs).toBeGreaterThan(-5_000);
    // expired: the owner stopped starting requests at its self-fence point (300 of 400 ms after its renewal)
    expect(await renewLeases(db, 'b', [{ company: 'c1', epoch: 2 }], 400, 300)).toEqual(['c1']);
    await until('the lease to expire', async () => !(await listLeases(db))[0].live);
    const [afterExpiry] = await claimLeases(db, 'a', ['c1'], 1, 60_000, false, 45_000);
    expect(afterExpiry.lastStartMs).toBeLessThanOrEqual(-100);
    // a run of its own name known dead (reclaimOwn) started nothing after its death: not 45 s from now
    const [own] = await claimLeases(db, 'a', ['c1'], 1, 60_000, true, 45_000);
    expect(own.epoch).toBe(4);
    expect(own.lastStartMs).toBeLessThanOrEqual(0);
    expect(own.lastStartMs).toBeGreaterThan(-5_000);
    // while the lease is live another node cannot claim it at all
    expect(await claimLeases(db, 'b', ['c1'], 1, 60_000, false, 45_000)).toEqual([]);
    // released by an owner whose last request for it ended 2.5 s before the release: quiet since then
    expect(await releaseLeases(db, 'a', [{ company: 'c1', epoch: 4 }], () => 2_500)).toEqual([
      'c1',
    ]);
    const [afterQuiet] = await claimLeases(db, 'b', ['c1'], 1, 60_000, false, 45_000);
    expect(afterQuiet.lastStartMs).toBeLessThanOrEqual(-2_500);
    expect(afterQuiet.lastStartMs).toBeGreaterThan(-7_500);
  });

  it('two nodes claiming at once get different companies (SKIP LOCKED), each at most what it asked for', async () => {
    await node('a');
    await node('b');
    await ensureLeaseRows(db, COMPANIES);
    const [a, b] = await Promise.all([
      claimLeases(db, 'a', COMPANIES, 3, 60_000),
      claimLeases(db, 'b', COMPANIES, 3, 60_000),
    ]);
    const taken = [...a, ...b].map((l) => l.company).sort();
    expect(new Set(taken).size).toBe(taken.length);
    expect(a.length).toBeLessThanOrEqual(3);
    expect(b.length).toBeLessThanOrEqual(3);
  });

  it('the fence lets the owner at its epoch commit, refuses anyone else, and a take-over waits for a commit in flight', async () => {
    await node('a');
    await node('b');
    await ensureLeaseRows(db, ['c1']);
    await claimLeases(db, 'a', ['c1'], 1, 300);
    const held = new Map([['c1', 1]]);
    const fenceA = new ClusterFence({ node: 'a', epochOf: (c) => held.get(c) });
    const fenceB = new ClusterFence({ node: 'b', epochOf: () => 1 });
    await db.transaction((tx) => fenceA.check(tx, 'c1'));
    await expect(db.transaction((tx) => fenceB.check(tx, 'c1'))).rejects.toMatchObject({
      code: 'EDOC_CLUSTER_FENCED',
    });
    await expect(db.transaction((tx) => fenceA.check(tx, 'c9'))).rejects.toMatchObject({
      code: 'EDOC_CLUSTER_FENCED',
    });

    // a verdict commit of 'a' in flight holds the row FOR SHARE: b's claim after expiry skips it until that commit ends
    let finish!: () => void;
    const inFlight = db.transaction(async (tx) => {
      await fenceA.check(tx, 'c1');
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    await until('the commit to hold its fence', () => finish !== undefined);
    await until('the lease to expire', async () => !(await listLeases(db))[0].live);
    expect(await claimLeases(db, 'b', ['c1'], 1, 60_000)).toEqual([]);
    finish();
    await inFlight;
    expect(await claimLeases(db, 'b', ['c1'], 1, 60_000)).toMatchObject([
      { company: 'c1', epoch: 2 },
    ]);
    // after expiry and take-over the old owner's commits are refused
    await expect(db.transaction((tx) => fenceA.check(tx, 'c1'))).rejects.toMatchObject({
      code: 'EDOC_CLUSTER_FENCED',
    });
  });

  it('a file is claimed once; a claim of an older epoch without a file is taken over, a recorded one is not', async () => {
    const claim = {
      path: relativeInboxPath('/in', '/in/c1/invoice/a.json'),
      sha256: 'x'.repeat(64),
      company: 'c1',
    };
    expect(claim.path).toBe('c1/invoice/a.json');
    expect(await db.transaction((tx) => claimFile(tx, 'a', 1, claim))).toEqual({ claimed: true });
    // another node at the same epoch (impossible while the fence holds) does not take it
    expect(await db.transaction((tx) => claimFile(tx, 'b', 1, claim))).toMatchObject({
      claimed: false,
    });
    // the next owner (a higher epoch) takes over a claim left without a file
    expect(await db.transaction((tx) => claimFile(tx, 'b', 2, claim))).toEqual({ claimed: true });
    await db.exec(`INSERT INTO files(id, path, name, report_name, size, sha256, kind, company, state, started_at)
      VALUES (7, '/in/c1/invoice/a.json', 'a.json', 'a', 1, '${'x'.repeat(64)}', 'invoice', 'c1', 'open', 0)`);
    await db.transaction((tx) => attachClaim(tx, claim, 7));
    expect(await db.transaction((tx) => claimFile(tx, 'c', 3, claim))).toEqual({
      claimed: false,
      fileId: 7,
      node: 'b',
    });
    await db.exec('DELETE FROM file_claims; DELETE FROM files');
  });

  it('heartbeats count live nodes; a stopped or silent node is not live', async () => {
    await node('a');
    await node('b');
    const a = { name: 'a', host: 'test', pid: 1 };
    expect(await heartbeat(db, a, 60_000)).toBe(2);
    await db.run("UPDATE nodes SET heartbeat_at = now() - interval '2 minutes' WHERE name = 'b'");
    expect(await heartbeat(db, a, 60_000)).toBe(1);
    expect(await heartbeat(db, { ...a, name: 'nobody' }, 60_000)).toBeUndefined();
    expect((await listNodes(db, 60_000)).map((n) => [n.name, n.live])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it("a name a live run holds is not registered again (another host); that run's heartbeat goes on, a superseded run's does not", async () => {
    await node('a');
    const elsewhere = { name: 'a', host: 'other-host', pid: 2, version: 't' };
    expect(await registerNode(db, elsewhere, 60_000)).toMatchObject({
      before: 'in-use',
      holder: { host: 'test', pid: 1 },
    });
    expect(await heartbeat(db, { name: 'a', host: 'test', pid: 1 }, 60_000)).toBe(1);
    // the holder went silent past the lease: the other run takes the name, and the old run's beat finds it gone
    await db.run("UPDATE nodes SET heartbeat_at = now() - interval '2 minutes' WHERE name = 'a'");
    expect(await registerNode(db, elsewhere, 60_000)).toEqual({ before: 'dead' });
    expect(await heartbeat(db, { name: 'a', host: 'test', pid: 1 }, 60_000)).toBeUndefined();
    expect(await heartbeat(db, elsewhere, 60_000)).toBe(1);
  });

  function keeper(
    name: string,
    leaseMs = 1_500,
    log: [string, string, LeaseEnd | 'gained'][] = [],
  ): LeaseKeeper {
    const exec = openPostgresExecutor(pgDb().url, { maxConnections: 2 });
    opened.push(exec);
    const k = new LeaseKeeper({
      db: exec,
      me: { name, host: 'test', pid: process.pid, version: 't' },
      leaseMs,
      companies: () => COMPANIES,
      logger,
      events: {
        gained: async (company) => {
          log.push([name, company, 'gained']);
        },
        ended: async (company, why) => {
          log.push([name, company, why]);
        },
      },
    });
    keepers.push(k);
    return k;
  }

  it("keepers spread the companies evenly, hand extras to a node that joins, and take a stopped node's at its next beat", async () => {
    const log: [string, string, LeaseEnd | 'gained'][] = [];
    const a = keeper('a', 1_500, log);
    await a.start();
    expect(a.owned()).toEqual(COMPANIES);
    const b = keeper('b', 1_500, log);
    await b.start();
    const c = keeper('c', 1_500, log);
    await c.start();
    await until(
      'an even spread',
      () => a.owned().length === 2 && b.owned().length === 2 && c.owned().length === 2,
    );
    const owners = (await listLeases(db)).map((l) => l.owner);
    expect(new Set(owners)).toEqual(new Set(['a', 'b', 'c']));
    // hand-overs were graceful: ended('handback') before the other node gained it
    for (const [who, company, what] of log.filter(([, , w]) => w === 'handback')) {
      const endedAt = log.findIndex((e) => e[0] === who && e[1] === company && e[2] === what);
      const gainedAt = log.findIndex(
        (e, i) => i > endedAt && e[1] === company && e[2] === 'gained',
      );
      expect(gainedAt).toBeGreaterThan(endedAt);
    }
    // a graceful stop releases at once; the others share its companies
    const t0 = Date.now();
    await c.close();
    await until('a and b to hold all six', () => a.owned().length + b.owned().length === 6);
    expect(Date.now() - t0).toBeLessThan(1_500 * 3); // released, not expired: well within the lease
    expect(a.mayStart(a.owned()[0])).toBe(true);
    // every company has exactly one owner, at a fresh epoch
    const rows = await listLeases(db);
    expect(rows.every((r) => r.owner === 'a' || r.owner === 'b')).toBe(true);
  });

  it('a released lease is announced (NOTIFY): a listening node claims it at once, not at its next heartbeat; a listener cut off listens again', async () => {
    // heartbeats every 10 s: only the notice can make x claim sooner
    const l = keeper('l', 30_000);
    await l.start();
    expect(l.owned()).toEqual(COMPANIES);
    const x = keeper('x', 30_000);
    await x.start();
    expect(x.owned()).toEqual([]); // l holds every lease
    const heard: string[] = [];
    let again = 0;
    const ears = new LeaseNotices({
      url: pgDb().url,
      applicationName: 'edoc-bridge x',
      node: 'x',
      retryMs: 200,
      logger,
      onReleased: (by) => {
        heard.push(by);
        x.beatSoon();
      },
      onListeningAgain: () => {
        again += 1;
      },
    });
    ears.start();
    try {
      await until('x listening', () => ears.listening);
      // the listening connection is ended by the server: it is opened again (a new session, listening)
      const listener = async (): Promise<number | undefined> =>
        (
          await db.get<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'edoc-bridge x' AND query LIKE 'LISTEN%'",
          )
        )?.pid;
      const first = await until('the LISTEN session', listener);
      await db.run('SELECT pg_terminate_backend(?::int)', [first]);
      // by its own account (listening is still true for the cut connection until its socket reports the
      // cut) and by the server's, asked once per probe: a notice sent before the new session's LISTEN is
      // lost, as the lease-notices.ts header says (two questions could see the old session, then none)
      await until(
        'x listening again',
        async () => {
          const pid = await listener();
          return again === 1 && ears.listening && pid !== undefined && pid !== first;
        },
        10_000,
      );
      const released = Date.now();
      await l.close(); // a graceful stop: six released at once, announced at its commit
      await until('x to claim them at once', () => x.owned().length === 6, 5_000);
      expect(Date.now() - released).toBeLessThan(3_000); // its own heartbeat is up to 10 s away
      expect(heard).toEqual(['l']);
    } finally {
      await ears.close();
    }
  });

  it('a node that disappears without stopping loses its companies to the others when its leases expire', async () => {
    const a = keeper('a', 1_200);
    const b = keeper('b', 1_200);
    await a.start();
    await b.start();
    await until('an even spread', () => a.owned().length === 3 && b.owned().length === 3);
    // b "dies": its timer stops, nothing is released
    const gone = b.owned();
    (b as unknown as { closing: Promise<void> }).closing = Promise.resolve();
    await (b as unknown as { timer: { stop(): Promise<void> } }).timer.stop();
    await until('a to hold all six', () => a.owned().length === 6, 20_000);
    const rows = await listLeases(db);
    for (const company of gone)
      expect(rows.find((r) => r.company === company)?.epoch).toBeGreaterThanOrEqual(2);
    // b's leases are gone: the fence refuses it, its renewal drops them all
    const fenceB = new ClusterFence(b);
    await expect(db.transaction((tx) => fenceB.check(tx, gone[0]))).rejects.toMatchObject({
      code: 'EDOC_CLUSTER_FENCED',
    });
    await b.beat();
    expect(b.owned()).toEqual([]);
  });

  it('a company that cannot be started here (its recovery failed) is released and taken again, not held idle', async () => {
    const exec = openPostgresExecutor(pgDb().url, { maxConnections: 2 });
    opened.push(exec);
    let failures = 1;
    const started: number[] = [];
    const k = new LeaseKeeper({
      db: exec,
      me: { name: 'y', host: 'test', pid: process.pid, version: 't' },
      leaseMs: 900,
      companies: () => ['c1'],
      logger,
      events: {
        gained: async (_company, epoch) => {
          if (failures-- > 0) throw new Error('recovery failed');
          started.push(epoch);
        },
        ended: async () => undefined,
      },
    });
    keepers.push(k);
    await k.start();
    await until('the company to be started at a later epoch', () => started.length === 1);
    expect(started[0]).toBeGreaterThanOrEqual(2);
    expect(k.owned()).toEqual(['c1']);
  });

  it('self-fencing: without a renewal for 3/4 of the lease, no new request starts (own monotonic clock)', async () => {
    let now = 0;
    const exec = openPostgresExecutor(pgDb().url, { maxConnections: 2 });
    opened.push(exec);
    const k = new LeaseKeeper({
      db: exec,
      me: { name: 'z', host: 'test', pid: process.pid, version: 't' },
      leaseMs: 60_000,
      companies: () => ['c1'],
      logger,
      monotonic: () => now,
      events: { gained: async () => undefined, ended: async () => undefined },
    });
    keepers.push(k);
    await k.start();
    expect(k.mayStart('c1')).toBe(true);
    now += 44_000;
    expect(k.mayStart('c1')).toBe(true);
    now += 2_000;
    expect(k.mayStart('c1')).toBe(false);
    await k.beat(); // renewed: starts again
    expect(k.mayStart('c1')).toBe(true);
  });
});
