/**
 * Self-fencing's clock (lease-keeper.ts): when this node's leases were last renewed — measured by its own
 * monotonic clock from when that renewal was SENT, so never later than the database's view — and whether
 * that is recent enough for a new request to start; and since when the database has not answered. Each
 * change is logged once.
 */
import type { LeaseKeeperOptions } from './lease-keeper-types.js';

export class RenewalClock {
  private renewedAt = Number.NEGATIVE_INFINITY;
  private fencedLogged = false;
  private unreachableSince: number | undefined;

  private readonly o: { node: string; leaseMs: number; logger: LeaseKeeperOptions['logger'] };

  /** `safeMs`: how old the last renewal may be for a new request to start. */
  constructor(
    options: LeaseKeeperOptions,
    private readonly safeMs: number,
    private readonly mono: () => number,
  ) {
    this.o = { node: options.me.name, leaseMs: options.leaseMs, logger: options.logger };
  }

  /** Whether the last renewal is recent enough for a new request to start. */
  fresh(): boolean {
    const since = this.mono() - this.renewedAt;
    const fresh = since < this.safeMs;
    if (!fresh && !this.fencedLogged) {
      this.fencedLogged = true;
      this.o.logger.warn(
        { node: this.o.node, sinceRenewalMs: Math.round(since), leaseMs: this.o.leaseMs },
        'cluster: the leases could not be renewed in time: no new request starts until they are',
      );
    }
    return fresh;
  }

  /** The leases were renewed by a beat sent at `sentAt`. */
  renewed(sentAt: number): void {
    this.renewedAt = sentAt;
    this.fencedLogged = false;
    if (this.unreachableSince === undefined) return;
    this.o.logger.info(
      { node: this.o.node, afterMs: Math.round(this.mono() - this.unreachableSince) },
      'cluster: the database answers again',
    );
    this.unreachableSince = undefined;
  }

  /** A beat sent at `sentAt` failed. */
  failed(sentAt: number, err: unknown): void {
    if (this.unreachableSince !== undefined) return;
    this.unreachableSince = sentAt;
    this.o.logger.warn(
      { err, node: this.o.node },
      'cluster: heartbeat failed; retried at the next beat',
    );
  }
}
