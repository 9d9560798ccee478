/**
 * Alerts about a company's documents: paused by a 401 (the sender tells), a burst of rejections
 * (`alerts.rejections.count` within `within`), documents in doubt (one episode per company: the first
 * opens it with a count, it ends when none is in doubt any more — an operator resolved or re-queued
 * them), and documents still unsent as the Colombian day ends (`alerts.dayEndLead` before midnight,
 * America/Bogota, once per company and day: the authority wants documents dated the day they are
 * sent). The in-doubt and unsent counts are read from the ledger on a tick, so `resolve` and `retry`
 * run by another process end their episodes too.
 */
import type { CompanyView } from '../company/company-view.js';
import type { AlertsConfig } from '../config/alerts-schema.js';
import type { CompanyOpenCounts } from '../ledger/types.js';
import { colombiaToday } from '../policy/dates.js';
import type { SenderEvent } from '../submit/company-sender-options.js';
import type { Alerter } from './alerter.js';

const DAY_MS = 86_400_000;
/** Colombia keeps UTC−5 all year. */
const COLOMBIA_OFFSET_MS = -5 * 3_600_000;

export interface DocumentAlertsOptions {
  alerter: Alerter;
  config(): AlertsConfig;
  /** The ledger's counts per company (Ledger.openCounts); `unsent` only needed near the day's end. */
  counts(withUnsent: boolean): Promise<CompanyOpenCounts[]> | CompanyOpenCounts[];
  /** Whether the company's sender is paused now (a reload lifts it). */
  isPaused(company: string): boolean;
  /**
   * Which companies this process runs: in-doubt and day-end alerts are raised by a company's owner only
   * (not once per node), and an episode of a company it no longer runs is left to the owner.
   */
  companies: CompanyView;
  now?: () => number;
  /** How often the counts are read. @defaultValue 30000 */
  tickMs?: number;
  onError(err: unknown): void;
}

export class DocumentAlerts {
  private readonly rejections = new Map<string, number[]>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;

  constructor(private readonly options: DocumentAlertsOptions) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 30_000);
    this.timer.unref();
    this.tickSoon();
  }

  /** What a sender said. */
  senderEvent(event: SenderEvent): void {
    const { alerter } = this.options;
    if (event.type === 'paused') {
      alerter.raise(`company-paused:${event.company}`, {
        kind: 'company-paused',
        severity: 'error',
        company: event.company,
        message:
          `the service refused the credentials of company ${event.company}: its submissions are paused until ` +
          'the configuration is reloaded (SIGHUP) or the daemon restarts',
        details: { reason: event.reason },
      });
    } else if (event.status === 'rejected') {
      this.rejected(event.company);
    } else if (event.status === 'in-doubt') {
      this.tickSoon();
    }
  }

  private rejected(company: string): void {
    const { count, within } = this.options.config().rejections;
    const now = this.now();
    const times = (this.rejections.get(company) ?? []).filter((t) => now - t < within);
    times.push(now);
    this.rejections.set(company, times.slice(-count));
    if (times.length < count) return;
    this.options.alerter.raise(`rejection-burst:${company}`, {
      kind: 'rejection-burst',
      severity: 'error',
      company,
      message:
        `${times.length} documents of company ${company} were rejected by the authority within ${Math.round(within / 60_000)} min: ` +
        'see errors.csv in the outbox; something upstream (the ERP export, a mapping, a range) may be wrong',
      details: { rejected: times.length, withinSeconds: Math.round(within / 1000) },
    });
  }

  /** In-doubt documents may have appeared: counted on the next turn (one ledger read for many verdicts). */
  private tickSoon(): void {
    if (this.soon !== undefined) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.tick();
    }, 50);
    this.soon.unref();
  }

  /** Reads the counts and opens or ends the episodes they decide. Never rejects (errors go to onError). */
  async tick(): Promise<void> {
    try {
      await this.check();
    } catch (err) {
      this.options.onError(err);
    }
  }

  private async check(): Promise<void> {
    const { alerter, config } = this.options;
    const now = this.now();
    const colombia = now + COLOMBIA_OFFSET_MS;
    const msLeft = DAY_MS - (((colombia % DAY_MS) + DAY_MS) % DAY_MS);
    const dayEnding = msLeft <= config().dayEndLead;
    const owns = (company: string): boolean => this.options.companies.owns(company);
    const counts = new Map(
      (await this.options.counts(dayEnding))
        .filter((c) => owns(c.company))
        .map((c) => [c.company, c]),
    );
    for (const episode of alerter.openEpisodes('document-in-doubt:')) {
      const company = episode.slice('document-in-doubt:'.length);
      if (owns(company) && (counts.get(company)?.inDoubt ?? 0) === 0) {
        alerter.end(episode, {
          kind: 'document-in-doubt',
          company,
          message: `no document of company ${company} is in doubt any more`,
        });
      }
    }
    for (const c of counts.values()) {
      if (c.inDoubt === 0) continue;
      alerter.raise(`document-in-doubt:${c.company}`, {
        kind: 'document-in-doubt',
        severity: 'error',
        company: c.company,
        message:
          `${c.inDoubt} document${c.inDoubt === 1 ? '' : 's'} of company ${c.company} in doubt: check at the authority, then ` +
          'edoc-bridge resolve or retry --in-doubt (edoc-bridge status lists them)',
        details: { documents: c.inDoubt },
      });
    }
    for (const episode of alerter.openEpisodes('company-paused:')) {
      const company = episode.slice('company-paused:'.length);
      if (!this.options.isPaused(company))
        alerter.end(episode, {
          kind: 'company-paused',
          company,
          message: `submissions of company ${company} resume`,
        });
    }
    const { within } = config().rejections;
    for (const episode of alerter.openEpisodes('rejection-burst:')) {
      const company = episode.slice('rejection-burst:'.length);
      const last = this.rejections.get(company)?.at(-1);
      if (last === undefined || now - last >= within) {
        alerter.end(episode, {
          kind: 'rejection-burst',
          company,
          message: `no document of company ${company} was rejected in the last ${Math.round(within / 60_000)} min`,
        });
      }
    }
    this.dayEnd(now, msLeft, dayEnding, counts);
  }

  private dayEnd(
    now: number,
    msLeft: number,
    dayEnding: boolean,
    counts: Map<string, CompanyOpenCounts>,
  ): void {
    const { alerter } = this.options;
    const day = colombiaToday(now);
    // yesterday's episodes are over: the day they were about has ended
    for (const episode of alerter.openEpisodes('unsent-at-day-end:'))
      if (!episode.endsWith(`:${day}`)) alerter.end(episode);
    if (!dayEnding) return;
    for (const c of counts.values()) {
      if (c.unsent === 0) continue;
      const minutes = Math.max(0, Math.round(msLeft / 60_000));
      alerter.raise(`unsent-at-day-end:${c.company}:${day}`, {
        kind: 'unsent-at-day-end',
        severity: 'warning',
        company: c.company,
        message:
          `${c.unsent} document${c.unsent === 1 ? '' : 's'} of company ${c.company} not sent yet, and the day ends in Colombia in ` +
          `${minutes} min: documents are to be dated the day they are sent`,
        details: { documents: c.unsent, day, minutesLeft: minutes },
      });
    }
  }

  close(): void {
    clearInterval(this.timer);
    clearTimeout(this.soon);
  }
}
