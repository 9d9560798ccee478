/**
 * The daemon's alerts and numbering-range watch, built from the pipeline and the configuration: the
 * range watch (E10 through each company's rate, the ledger's numbers used) that also checks each
 * document's own number at intake; the alerter (log + webhook, once per episode); and the rules that
 * feed it from the service's health, the senders, the ledger's counts, the range watch and the
 * received-documents pull. Started and closed by the Daemon. The operator listener reads
 * `rangeWatch.snapshot()` and `alerts.recent()`.
 */
import type { Config } from '../config/schema.js';
import { secretScrubberOf } from '../config/secrets.js';
import { redactedWebhook } from '../config/webhook-url.js';
import type { AlertLog } from '../alerts/alert-record.js';
import { Alerter } from '../alerts/alerter.js';
import { closeInOrder } from './close-steps.js';
import { DocumentAlerts } from '../alerts/document-alerts.js';
import { RangeAlerts } from '../alerts/range-alerts.js';
import { ServiceAlerts } from '../alerts/service-alerts.js';
import { WebhookDelivery } from '../alerts/webhook.js';
import type { AppLogger } from '../log/logger.js';
import { RangeSchedule } from '../ranges/range-schedule.js';
import { RangeWatch } from '../ranges/range-watch.js';
import type { SenderEvent } from '../submit/company-sender.js';
import type { Pipeline } from './pipeline.js';

export interface AlertingOptions {
  /** The alerts' clock (the day's end, episodes' times): tests pin it. @defaultValue Date.now */
  now?: () => number;
  /** How often the ledger's in-doubt and unsent counts are read. @defaultValue 30000 */
  tickMs?: number;
}

export class Alerting {
  readonly rangeWatch: RangeWatch;
  private readonly alerter: Alerter;
  private readonly service: ServiceAlerts;
  private readonly documents: DocumentAlerts;
  private readonly ranges: RangeAlerts;
  private webhook: WebhookDelivery | undefined;
  private webhookUrl: string | undefined;
  private closing: Promise<void> | undefined;
  private readonly onSender = (event: SenderEvent): void => {
    this.documents.senderEvent(event);
    if (event.type === 'final' && event.status === 'accepted') this.rangeWatch.touch(event.company);
  };

  constructor(
    private readonly pipeline: Pipeline,
    private config: Readonly<Config>,
    private readonly logger: AppLogger,
    options: AlertingOptions = {},
  ) {
    const now = options.now ?? Date.now;
    const stateDir = config.paths.state;
    this.alerter = new Alerter({
      logger,
      stateDir,
      now,
      deliver: (record) => this.webhook?.send(record),
    });
    this.setWebhook(config);
    this.rangeWatch = new RangeWatch({
      // cluster mode: only the companies this node runs (their owner reads the others' ranges)
      runs: pipeline.companies,
      client: pipeline.client,
      logger,
      stateDir,
      now,
      highestUsed: (company, kinds, prefix, from, to) =>
        pipeline.ledger.highestNumberUsed(company, kinds, prefix, from, to),
      refuse: () => this.config.alerts.ranges.refuseOutOfRange,
    });
    this.ranges = new RangeAlerts(this.alerter, () => this.config.alerts.ranges);
    this.rangeWatch.on('update', (company, states) => this.ranges.update(company, states));
    this.service = new ServiceAlerts(
      pipeline.health,
      this.alerter,
      () => this.config.alerts.serviceDownAfter,
      now,
    );
    this.documents = new DocumentAlerts({
      alerter: this.alerter,
      config: () => this.config.alerts,
      now,
      ...(options.tickMs ? { tickMs: options.tickMs } : {}),
      counts: (withUnsent) => pipeline.ledger.openCounts(withUnsent),
      isPaused: (company) => pipeline.sender(company)?.isPaused === true,
      companies: pipeline.companies,
      onError: (err) =>
        logger.warn(
          { err },
          "alerts: the ledger's counts could not be read; tried again on the next tick",
        ),
    });
  }

  /** The last alerts (the console). */
  get alerts(): AlertLog {
    return this.alerter;
  }

  start(): void {
    this.pipeline.checkNumber = (company, kind, key) =>
      this.rangeWatch.checkNumber(company, kind, key);
    // a file refused whole (or cut short) took back the numbers its stored documents held: a range's
    // last used number, computed while they were stored, is computed again (ranges.json for `status`)
    this.pipeline.numbersFreed = (company) => this.rangeWatch.touch(company);
    this.pipeline.senderEvents.on('event', this.onSender);
    this.service.start();
    this.documents.start();
    this.rangeWatch.start();
    // each company's run reads its ranges on its own schedule (at its start, then every `every`)
    this.pipeline.companies.addJob(
      (run) => new RangeSchedule(this.rangeWatch, run, () => this.config.alerts.ranges.every),
    );
  }

  /** A received-documents pull of `company` ended (the received scheduler). */
  pulled(company: string, outcome: { ok: true } | { ok: false; reason: string }): void {
    if (!this.closing) this.service.pulled(company, outcome);
  }

  /** A new configuration (SIGHUP): thresholds apply at once; a changed webhook takes the alerts from now on. */
  reload(next: Readonly<Config>): void {
    const before = this.config;
    this.config = next;
    // (a company added, or given another key or NIT, has its ranges read by its run: RangeSchedule)
    if (next.alerts.ranges.every !== before.alerts.ranges.every) this.rangeWatch.reschedule();
    this.setWebhook(next);
    void this.documents.tick(); // a reload lifts 401 pauses: their episodes end
  }

  private setWebhook(config: Readonly<Config>): void {
    const { webhook: url, queue, timeoutMs, baseDelayMs, maxDelayMs } = config.alerts;
    if (url === this.webhookUrl && this.webhook !== undefined) return;
    const old = this.webhook;
    this.webhook = undefined;
    this.webhookUrl = url;
    if (old !== undefined) void old.close();
    if (url === undefined) return;
    this.webhook = new WebhookDelivery({
      url,
      shownAs: redactedWebhook(url),
      logger: this.logger,
      queue,
      timeoutMs,
      baseDelayMs,
      maxDelayMs,
      scrub: (text) => secretScrubberOf(this.config).scrub(text),
    });
    this.logger.info(
      { webhook: redactedWebhook(url) },
      'alerts go to the webhook as well as to the log',
    );
  }

  /** Stops the rules, the range watch and the webhook; each step runs even if one before failed. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.pipeline.checkNumber = undefined;
      this.pipeline.numbersFreed = undefined;
      this.pipeline.senderEvents.off('event', this.onSender);
      await closeInOrder(
        [
          ['service alerts', () => this.service.close()],
          ['document alerts', () => this.documents.close()],
          ['range watch', () => this.rangeWatch.close()],
          ['webhook', () => this.webhook?.close()],
          ['alerts file', () => this.alerter.flush()],
        ],
        this.logger,
      );
    })();
    return this.closing;
  }
}
