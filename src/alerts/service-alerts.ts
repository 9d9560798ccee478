/**
 * Alerts about reaching the service: unreachable longer than `alerts.serviceDownAfter` and back (from
 * ServiceHealth's `down`/`up`), and the received-documents pull failing and recovering (from the
 * received scheduler). One episode each: a service that flaps within `serviceDownAfter` raises nothing.
 */
import type { ServiceHealth, ServiceHealthEvents } from '../health/service-health.js';
import type { Alerter } from './alerter.js';

const SERVICE = 'service';

export class ServiceAlerts {
  private timer: NodeJS.Timeout | undefined;
  private readonly onDown = (event: ServiceHealthEvents['down'][0]): void =>
    this.down(event.since, event.reason);
  private readonly onUp = (event: ServiceHealthEvents['up'][0]): void =>
    this.up(event.at, event.downSince);

  constructor(
    private readonly health: ServiceHealth,
    private readonly alerter: Alerter,
    private readonly downAfterMs: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.health.on('down', this.onDown);
    this.health.on('up', this.onUp);
    const since = this.health.downSince;
    if (this.health.state === 'down' && since !== undefined)
      this.down(since, this.health.lastFailureReason ?? 'no answer');
  }

  private down(since: number, reason: string): void {
    clearTimeout(this.timer);
    const wait = Math.max(0, this.downAfterMs() - (this.now() - since));
    this.timer = setTimeout(() => {
      if (this.health.state !== 'down') return;
      const seconds = Math.round((this.now() - since) / 1000);
      this.alerter.raise(SERVICE, {
        kind: 'service-down',
        severity: 'error',
        message: `the service has not answered for ${seconds} s (since ${new Date(since).toISOString()}): documents wait and are retried`,
        details: { since: new Date(since).toISOString(), reason },
      });
    }, wait);
    this.timer.unref();
  }

  private up(at: number, downSince: number): void {
    clearTimeout(this.timer);
    const seconds = Math.round((at - downSince) / 1000);
    this.alerter.end(SERVICE, {
      kind: 'service-up',
      message: `the service answers again after ${seconds} s without an answer`,
      details: { downSince: new Date(downSince).toISOString(), downForSeconds: seconds },
    });
  }

  /** A received-documents pull of `company` ended: read (`ok`) or not. */
  pulled(company: string, outcome: { ok: true } | { ok: false; reason: string }): void {
    const episode = `received-pull:${company}`;
    if (outcome.ok) {
      this.alerter.end(episode, {
        kind: 'received-pull-recovered',
        company,
        message: `received documents of company ${company} are pulled again`,
      });
      return;
    }
    this.alerter.raise(episode, {
      kind: 'received-pull-failing',
      severity: 'warning',
      company,
      message: `the received-documents pull of company ${company} failed (${outcome.reason}); it is tried again on its schedule`,
      details: { reason: outcome.reason },
    });
  }

  close(): void {
    clearTimeout(this.timer);
    this.health.off('down', this.onDown);
    this.health.off('up', this.onUp);
  }
}
