/**
 * Starting a company this node claimed (lease-keeper.ts): the pipeline's `gained`, and what a start that
 * fails means. A failure of the database is retried at the next beat. A refusal of this node's entry of
 * the company (`EDOC_CONFIG_INVALID`: its open files were taken under another NIT or id,
 * company/taken-under.ts) holds as long as the entry and the files do, so no node with this entry may run
 * the company: it is said once per refusal (and again every REMINDER_MS while it holds), and the company
 * is claimed again only after a backoff (two heartbeats, doubling up to MAX_BACKOFF_MS: its files may turn
 * final, the node that took them may come back) or at once when this node's entry of it changes (a
 * reload), instead of being claimed, refused and released at every heartbeat with an error line each time.
 * Not claiming is always safe: another node may claim it, and every start checks again.
 */
import { isEdocError } from '../errors.js';
import type { AppLogger } from '../log/logger.js';
import type { LeaseKeeperOptions } from './lease-keeper-types.js';
import type { ClaimedLease } from './lease-store.js';

/** How often a refusal that holds is said again. */
export const REMINDER_MS = 10 * 60_000;
/** The longest a refused company waits between two claims by this node. */
export const MAX_BACKOFF_MS = 60_000;

interface Refusal {
  /** This node's entry of the company (company-identity.ts) when it was refused. */
  identity: string | undefined;
  text: string;
  loggedAt: number;
  backoffMs: number;
  claimAt: number;
}

export class CompanyStarts {
  private readonly refused = new Map<string, Refusal>();

  private readonly events: LeaseKeeperOptions['events'];
  private readonly logger: AppLogger;

  constructor(
    options: Pick<LeaseKeeperOptions, 'events' | 'logger'>,
    private readonly node: string,
    private readonly heartbeatMs: number,
    private readonly mono: () => number,
  ) {
    this.events = options.events;
    this.logger = options.logger;
  }

  /** Whether to claim the company at this beat (`identity`: this node's entry of it now). */
  mayClaim(company: string, identity: string | undefined): boolean {
    const r = this.refused.get(company);
    return r === undefined || r.identity !== identity || this.mono() >= r.claimAt;
  }

  /** Starts the company's parts; false when it did not start (its lease is to be released). */
  async start(
    { company, epoch, lastStartMs }: ClaimedLease,
    identity: string | undefined,
  ): Promise<boolean> {
    try {
      await this.events.gained(company, epoch, lastStartMs);
    } catch (err) {
      const refusal = isEdocError(err, 'EDOC_CONFIG_INVALID');
      if (!refusal || this.refusedNow(company, identity, err.message))
        this.logger.error(
          { err, node: this.node, company, epoch },
          'cluster: the company could not be started here: its lease is released',
        );
      else this.logger.debug({ node: this.node, company, epoch }, 'cluster: still refused here');
      return false;
    }
    if (this.refused.delete(company))
      this.logger.info(
        { node: this.node, company, epoch },
        'cluster: the company is no longer refused here: it runs here now',
      );
    return true;
  }

  /** Remembers the refusal; whether to log it now (the first, another one, or a reminder). */
  private refusedNow(company: string, identity: string | undefined, text: string): boolean {
    const now = this.mono();
    const was = this.refused.get(company);
    const same = was !== undefined && was.identity === identity && was.text === text;
    const backoffMs = same ? Math.min(was.backoffMs * 2, MAX_BACKOFF_MS) : 2 * this.heartbeatMs;
    const log = !same || now - was.loggedAt >= REMINDER_MS;
    this.refused.set(company, {
      identity,
      text,
      backoffMs,
      claimAt: now + backoffMs,
      loggedAt: log || was === undefined ? now : was.loggedAt,
    });
    return log;
  }
}
