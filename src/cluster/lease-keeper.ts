/**
 * This node's side of the cluster: its row in `nodes`, the leases of the companies it owns, and the
 * heartbeat that keeps both alive. Every `heartbeatMs` (leaseMs / 3) one beat, never two at once:
 *
 *  1. heartbeat, and count the live nodes;
 *  2. renew every held lease; one that is no longer ours (owner or epoch changed) is dropped at once;
 *  3. fair spread: aim at ceil(companies / live nodes); above it, hand the extras back (gracefully: the
 *     company's parts stop and drain first, then the lease is released for the newcomer); below it,
 *     claim free or expired leases.
 *
 * Self-fencing: a node that cannot renew (database unreachable, process frozen) starts no new request for
 * its companies once its last renewal is older than `safeShare` of leaseMs (renewal-clock.ts); the
 * database refuses its commits after expiry (fence.ts), and a take-over waits for expiry by the
 * database's clock. What a gained or lost company means for the pipeline is the `events` callbacks'
 * business, run per company outside the beat (company-chains.ts).
 */
import { performance } from 'node:perf_hooks';
import type { LeaseView } from './fence.js';
import { BeatTimer } from './beat-timer.js';
import { ClockOffset } from './clock-offset.js';
import { CompanyChains } from './company-chains.js';
import { CompanyStarts } from './company-starts.js';
import { FairShare } from './fair-share.js';
import { RenewalClock } from './renewal-clock.js';
import type { LeaseEnd, LeaseKeeperOptions } from './lease-keeper-types.js';
import { IdentityWatch } from './identity-watch.js';
import { NameHold } from './name-hold.js';
import {
  claimLeases,
  ensureLeaseRows,
  releaseLeases,
  renewLeases,
  type ClaimedLease,
} from './lease-store.js';
import { heartbeat, markStopped, registerNode, registerRun } from './membership.js';

export type { LeaseEnd, LeaseEvents, LeaseKeeperOptions } from './lease-keeper-types.js';

interface Held {
  epoch: number;
  /** Being handed back (drains, then released): renewed, but no new request starts. */
  leaving: boolean;
}

export class LeaseKeeper implements LeaseView {
  readonly node: string;
  private readonly held = new Map<string, Held>();
  private readonly chains: CompanyChains;
  private readonly starts: CompanyStarts;
  private readonly mono: () => number;
  private readonly heartbeatMs: number;
  private readonly safeMs: number;
  private readonly renewal: RenewalClock;
  private readonly timer: BeatTimer;
  private claiming = true;
  private reclaimOwn = false;
  private ensured = '';
  private readonly name: NameHold;
  /** What the fair spread remembers (fair-share.ts). */
  private readonly share: FairShare;
  private closing: Promise<void> | undefined;
  /** Live nodes at the last beat (status, tests). */
  liveNodes = 1;
  private readonly identities: IdentityWatch;
  private readonly clock: ClockOffset;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.node = options.me.name;
    this.mono = options.monotonic ?? (() => performance.now());
    this.heartbeatMs = options.heartbeatMs ?? Math.max(100, Math.floor(options.leaseMs / 3));
    this.safeMs = options.leaseMs * (options.safeShare ?? 0.75);
    this.timer = new BeatTimer(() => this.beat(), this.heartbeatMs);
    this.chains = new CompanyChains(options.logger, this.node);
    this.starts = new CompanyStarts(options, this.node, this.heartbeatMs, this.mono);
    this.share = new FairShare(options.leaseMs, this.mono);
    this.renewal = new RenewalClock(options, this.safeMs, this.mono);
    this.clock = new ClockOffset(options.db, this.node, options.logger);
    this.name = new NameHold(options.logger, this.node);
    this.identities = new IdentityWatch(
      options.db,
      this.node,
      options.leaseMs,
      options.logger,
      options.identity,
    );
  }

  /** Registers the node and runs the first beat (so the first companies are held when it resolves). */
  async start(): Promise<void> {
    const { db, me, leaseMs, logger } = this.options;
    // the ledger's clock is the database's before this node writes or compares any time
    await this.clock.measure();
    const before = await registerRun(db, me, leaseMs, logger, {
      monotonic: this.mono,
      pollMs: Math.max(50, Math.floor(this.heartbeatMs / 2)),
    });
    // a restart after a crash takes its own leases back at once
    this.reclaimOwn = before === 'dead';
    this.options.logger.info(
      { node: this.node, leaseMs: this.options.leaseMs, heartbeatMs: this.heartbeatMs },
      'cluster: node joined',
    );
    await this.beat();
    this.timer.start();
  }

  private readonly quietFor = (company: string): number =>
    this.options.events.quietForMs?.(company) ?? 0;

  /** The epoch this node holds the company at (the fence asks; leaving companies too, so their drain commits). */
  epochOf(company: string): number | undefined {
    return this.held.get(company)?.epoch;
  }

  /** Whether a new request may start for the company now: held, not leaving, and renewed recently enough. */
  mayStart(company: string): boolean {
    const held = this.held.get(company);
    if (held === undefined || held.leaving) return false;
    return this.renewal.fresh();
  }

  /** The companies held now, sorted. */
  owned(): string[] {
    return [...this.held.keys()].sort();
  }

  /** A commit of the company was fenced (its lease is gone): drop it at once, without waiting for the next beat. */
  fenced(company: string): void {
    if (!this.held.has(company)) return;
    this.drop(company, 'lost', 'a commit was refused by the lease fence');
  }

  /** No more claims (the pipeline is stopping); held leases are still renewed until close(). */
  quiesce(): void {
    this.claiming = false;
  }

  /** Stops beating, waits for the company callbacks, releases every lease at once and marks the node stopped. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.claiming = false;
    await this.timer.stop();
    await this.chains.settled();
    const held = [...this.held].map(([company, h]) => ({ company, epoch: h.epoch }));
    this.held.clear();
    try {
      // Released at once: another node takes them at its next beat instead of after leaseMs. The node is
      // marked stopped in the same transaction, whose commit delivers the release's notice: a node woken by
      // it no longer counts this one among the members, so its fair share covers all of them at that beat.
      await this.options.db.transaction(async (tx) => {
        await markStopped(tx, this.options.me);
        await releaseLeases(tx, this.node, held, this.quietFor);
      });
      this.options.logger.info(
        { node: this.node, released: held.map((h) => h.company) },
        'cluster: node left, leases released',
      );
    } catch (err) {
      this.options.logger.warn(
        { err, node: this.node },
        'cluster: could not release the leases at stop: other nodes take them when they expire',
      );
    }
  }

  /**
   * Another node released a lease (lease-notices.ts): beat now rather than at the next heartbeat, so a
   * company handed over is claimed at once. A beat under way is followed by another at once. The jitter
   * keeps every node from claiming in the same millisecond (SKIP LOCKED settles it anyway).
   */
  beatSoon(): void {
    if (this.closing !== undefined || !this.claiming) return;
    this.timer.soonest();
  }

  /** One beat (see the file comment). Never throws: a database that does not answer is retried at the next beat. */
  async beat(): Promise<void> {
    const { db, leaseMs } = this.options;
    const sentAt = this.mono();
    try {
      let live = await heartbeat(db, this.options.me, leaseMs);
      if (live === undefined) {
        // the row is gone (an operator deleted it: register again) or a later run took the name while
        // this one was frozen or cut off: that run owns the name's leases now, this one stands down
        if ((await registerNode(db, this.options.me, leaseMs)).before === 'in-use') {
          this.standDown();
          return;
        }
        this.name.regained();
        live = 1;
      }
      this.liveNodes = live;
      await this.clock.measure();
      const companies = this.options.companies();
      const key = JSON.stringify(companies);
      if (key !== this.ensured) {
        await ensureLeaseRows(db, companies);
        this.ensured = key;
      }
      const mine = await this.identities.read(companies);
      const held = [...this.held].map(([company, h]) => ({ company, epoch: h.epoch }));
      const renewed = new Set(await renewLeases(db, this.node, held, leaseMs, this.safeMs, mine));
      this.renewal.renewed(sentAt);
      for (const h of held)
        if (!renewed.has(h.company))
          this.drop(h.company, 'lost', 'another node holds its lease now');
      this.spread(companies, live);
      if (this.claiming) await this.claim(companies, live, mine);
      await this.identities.check(mine, new Set(this.held.keys()));
    } catch (err) {
      this.renewal.failed(sentAt, err);
    }
  }

  /** Another run holds this node's name now: drop every company, claim nothing (it is retried at every beat). */
  private standDown(): void {
    this.name.lost();
    for (const company of [...this.held.keys()])
      this.drop(company, 'lost', "another run of this node's name holds it");
  }

  /** Above the fair share: hand extras back, gracefully, the last companies by name first. */
  private spread(companies: readonly string[], live: number): void {
    const configured = new Set(companies);
    for (const [company, h] of this.held)
      if (!configured.has(company) && !h.leaving) this.handBack(company, h);
    if (live <= 1 || !this.claiming) return;
    const target = Math.ceil(companies.length / live);
    const staying = [...this.held].filter(([, h]) => !h.leaving).map(([company]) => company);
    for (const company of this.share.extras(staying, live, target))
      this.handBack(company, this.held.get(company) as Held);
  }

  private handBack(company: string, held: Held): void {
    held.leaving = true;
    this.options.logger.info(
      { node: this.node, company, epoch: held.epoch },
      'cluster: handing the company over (fair share)',
    );
    this.chains.run(company, async () => {
      await this.options.events.ended(company, 'handback');
      if (this.held.get(company) !== held) return; // lost meanwhile
      this.held.delete(company);
      this.share.handedBackNow(company);
      await releaseLeases(
        this.options.db,
        this.node,
        [{ company, epoch: held.epoch }],
        this.quietFor,
      ).catch((err: unknown) => {
        this.options.logger.warn(
          { err, node: this.node, company },
          'cluster: could not release a lease: it is taken when it expires',
        );
      });
    });
  }

  private async claim(
    companies: readonly string[],
    live: number,
    mine: ReadonlyMap<string, string>,
  ): Promise<void> {
    const target = Math.ceil(companies.length / Math.max(1, live));
    const held = new Set(this.held.keys());
    // a company whose start was refused here is claimed again only after a while (company-starts.ts)
    const candidates = companies.filter((c) => this.starts.mayClaim(c, mine.get(c)));
    const unwanted = this.share.unwanted(candidates, held);
    const orphans = await claimLeases(
      this.options.db,
      this.node,
      unwanted,
      unwanted.length,
      this.options.leaseMs,
      false,
      this.safeMs,
      mine,
    );
    this.share.adopt(orphans.map((o) => o.company));
    const room = target - this.share.counted(this.held.keys());
    const claimed: ClaimedLease[] = [
      ...orphans,
      ...(room <= 0
        ? []
        : await claimLeases(
            this.options.db,
            this.node,
            candidates.filter((c) => !held.has(c) && !this.share.isOrphan(c)),
            room,
            this.options.leaseMs,
            this.reclaimOwn,
            this.safeMs,
            mine,
          )),
    ];
    this.reclaimOwn = false;
    for (const { company, epoch, lastStartMs } of claimed) {
      this.held.set(company, { epoch, leaving: false });
      this.options.logger.info(
        {
          node: this.node,
          company,
          epoch,
          ...(Number.isFinite(lastStartMs) ? { lastStartMs } : {}),
        },
        'cluster: company taken',
      );
      this.chains.run(company, () =>
        this.startCompany({ company, epoch, lastStartMs }, mine.get(company)),
      );
    }
  }

  /**
   * Starts the company's parts. One that cannot start (the database failed during its recovery, or this
   * node's entry of it is refused: company-starts.ts) is not kept: a lease held by a node that does not
   * run the company would stall it. It is stopped and released, and claimed again later.
   */
  private async startCompany(lease: ClaimedLease, identity: string | undefined): Promise<void> {
    const { company, epoch } = lease;
    if (await this.starts.start(lease, identity)) return;
    if (this.held.get(company)?.epoch !== epoch) return;
    this.held.delete(company);
    await this.options.events.ended(company, 'lost');
    await releaseLeases(this.options.db, this.node, [{ company, epoch }], this.quietFor).catch(
      () => undefined,
    );
  }

  private drop(company: string, why: LeaseEnd, reason: string): void {
    const held = this.held.get(company);
    if (held === undefined) return;
    this.held.delete(company);
    this.share.forget(company);
    this.options.logger.warn(
      { node: this.node, company, epoch: held.epoch, reason },
      'cluster: company lost',
    );
    this.chains.run(company, () => this.options.events.ended(company, why));
  }
}
