/**
 * The daemon: the pipeline (daemon/pipeline.ts) fed by the inbox watcher, plus the received-documents
 * pulls, the alerts and the operator listener, all built by the composition root (root/start-daemon.ts);
 * starts them in order and closes in order (stop watching → finish or park the queue → flush the outbox
 * → close the ledger). Only the CLI touches signals and process.exit.
 */
import type { Config } from '../config/schema.js';
import { redactConfig } from '../config/redact.js';
import type { EdocError } from '../errors.js';
import type { LedgerPort } from '../ledger/port.js';
import { companyPause, savePauses } from '../submit/pause-file.js';
import type { AppLogger } from '../log/logger.js';
import { CompanyPull } from '../received/company-pull.js';
import type { ReceivedPuller } from '../received/puller.js';
import { InboxWatcher } from '../watch/inbox-watcher.js';
import { makeInboxFolder } from '../watch/inbox-folder.js';
import type { Alerting } from './alerting.js';
import {
  LastEntries,
  companyChangeRefusal,
  warnRemovedWithOpenFiles,
  warnSharedNits,
} from './company-change.js';
import { inboxMode } from './inbox-mode.js';
import { inboxFolders } from '../intake/folders.js';
import { StrayFiles } from '../watch/stray-files.js';
import { InboxFolderCheck, type OperatorSurface } from './operator.js';
import { restartOnly, restartsWatcher } from './reload-changes.js';
import type { Pipeline } from './pipeline.js';

/** What the daemon runs, built by the composition root (root/start-daemon.ts). */
export interface DaemonParts {
  /** Opened and started (root/open-pipeline.ts). */
  pipeline: Pipeline;
  alerting: Alerting;
  puller: ReceivedPuller;
  /** Starts the operator listener on the daemon's view, or none without `http` (daemon/operator.ts). */
  operator(daemon: DaemonView): Promise<OperatorSurface | undefined>;
}

/** What the operator listener reads of the daemon: the configuration in force and the watcher's state. */
export interface DaemonView {
  config(): Readonly<Config>;
  watcherProblem(): Promise<string | undefined>;
}

export class Daemon {
  private watcher: InboxWatcher | undefined;
  private strays: StrayFiles | undefined;
  private watching: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  /** The consume loop ended while the daemon was not stopping (readiness says so). */
  private watcherEnded = false;
  private operatorSurface: OperatorSurface | undefined;
  private readonly folderCheck = new InboxFolderCheck();
  /** The received-documents puller every company's pull shares (each run owns its pull: `CompanyPull`). */
  private readonly puller: ReceivedPuller;
  /** The pipeline it feeds (a test takes a file through it that the watcher would not offer). */
  readonly pipeline: Pipeline;
  private readonly openOperator: DaemonParts['operator'];
  /** Each company's last entry here (one a reload removed, judged when a reload adds it back). */
  private readonly history: LastEntries;
  /** The numbering-range watch and the alerts (the operator listener reads `rangeWatch.snapshot` and `alerts.recent`). */
  readonly alerting: Alerting;

  constructor(
    private config: Readonly<Config>,
    private readonly logger: AppLogger,
    parts: DaemonParts,
  ) {
    const { pipeline } = parts;
    this.pipeline = pipeline;
    this.alerting = parts.alerting;
    this.puller = parts.puller;
    this.openOperator = parts.operator;
    this.history = new LastEntries(config);
    pipeline.senderEvents.on('event', (event) => {
      if (event.type === 'paused') void this.recordPauses();
    });
    // cluster mode: the files of a company this node just took that were skipped so far are taken again (its
    // run's pull starts with the run, at once)
    pipeline.companies.onGained((company) => this.watcher?.retake(company));
    // a file dropped as changed is taken again once stable, even when it kept its size and mtime
    pipeline.onChanged = (file, since) => this.watcher?.again(file, since);
  }

  /**
   * Starts what the daemon adds to the started pipeline, in order: the paused companies recorded, the
   * alerts and range watch (before the watcher: the first files are checked against the ranges), the
   * inbox watcher, the pulls, then the operator listener (readiness asks the watcher). A listener that
   * cannot start (port in use) stops the start (EDOC_HTTP_LISTEN, exit 2): probes would fail anyway, and a
   * daemon quietly without its listener is worse than one that says so at once. The caller closes the
   * daemon when this throws.
   */
  async start(): Promise<void> {
    warnSharedNits(this.config, this.logger);
    await this.recordPauses();
    this.alerting.start();
    await this.startWatcher();
    this.startPulls();
    this.operatorSurface = await this.openOperator({
      config: () => this.config,
      watcherProblem: () => this.watcherProblem(),
    });
  }

  /** From now on every company's run pulls its received documents (its first pull at once). */
  private startPulls(): void {
    const { received, companies } = this.config;
    if (!received.enabled) {
      this.logger.info(
        { enabled: false },
        'received documents pull is disabled (received.enabled: false)',
      );
    } else {
      this.logger.info(
        { every: received.every, companies: companies.map((c) => c.alias) },
        'received documents pull scheduled',
      );
    }
    this.pipeline.companies.addJob(
      (run) =>
        new CompanyPull({
          ledger: this.pipeline.ledger,
          puller: this.puller,
          logger: this.logger,
          company: () => run.company,
          config: () => this.config,
          gate: run.gate,
          // the pages borrow the company's one rate (its sender's)
          rate: run.rate,
          // a 401 to a page pauses the company's sender too, and one to a submission the pull
          pause: run.pause,
          onPull: (company, outcome) => this.alerting.pulled(company, outcome),
        }),
    );
  }

  get ledger(): LedgerPort {
    return this.pipeline.ledger;
  }

  /** Which companies are paused now, for `edoc-bridge status` (submit/pause-file.ts); a write that fails is a warning. */
  private async recordPauses(): Promise<void> {
    const paused = this.pipeline
      .senderViews()
      .flatMap((v) =>
        v.pause === undefined ? [] : [companyPause(v.alias, v.pause.since, v.pause.reason)],
      );
    try {
      await savePauses(this.config.paths.state, paused);
    } catch (err) {
      this.logger.warn(
        { code: (err as NodeJS.ErrnoException).code },
        'could not record the paused companies for edoc-bridge status',
      );
    }
  }

  private async startWatcher(): Promise<void> {
    const folders = inboxFolders(this.config);
    const watcher = new InboxWatcher({
      folders,
      stableMs: this.config.watch.stableMs,
      usePolling: this.config.watch.usePolling,
      doneMarker: this.config.watch.doneMarker,
      logger: this.logger,
    });
    await watcher.start();
    this.watcher = watcher;
    this.strays?.close();
    this.strays = new StrayFiles({
      root: this.config.paths.inbox,
      folders: folders.map((f) => f.dir),
      logger: this.logger,
    });
    this.strays.start();
    const mode = inboxMode(this.config.watch);
    this.logger.info(
      { folders: folders.map((f) => f.dir), stableMs: this.config.watch.stableMs, mode: mode.mode },
      'watching the inbox',
    );
    // how a file counts as complete (one rule for every inbox): a writer that pauses longer than the stability window
    // needs a done marker or a rename
    this.logger.info(
      { inboxes: folders.length, mode: mode.mode, stableMs: this.config.watch.stableMs },
      mode.text,
    );
    this.watching = this.consume(watcher);
  }

  private async consume(watcher: InboxWatcher): Promise<void> {
    try {
      for await (const file of watcher) {
        if (this.closing !== undefined) break;
        // Back-pressure: do not pull more ready files than the intake can read.
        await this.pipeline.offer(file);
      }
    } finally {
      if (this.watcher === watcher && this.closing === undefined && !this.restarting)
        this.watcherEnded = true;
    }
  }

  private restarting = false;

  /** What is wrong with the inbox watcher (readiness), or undefined while it runs. */
  private async watcherProblem(): Promise<string | undefined> {
    if (this.closing !== undefined) return 'the daemon is stopping';
    if (this.watcher === undefined || this.restarting) return 'the inbox watcher is (re)starting';
    if (this.watcherEnded) return 'the inbox watcher stopped';
    return this.folderCheck.problem(inboxFolders(this.config));
  }

  /** The operator listener's address, when `http` is configured. */
  get operatorUrl(): string | undefined {
    return this.operatorSurface?.url;
  }

  /** Why this configuration may not replace the running one (checked before any change), or undefined. */
  async reloadRefusal(next: Readonly<Config>): Promise<EdocError | undefined> {
    const cluster = this.pipeline.companies.cluster;
    return (
      this.operatorSurface?.reloadRefusal(next) ??
      (await companyChangeRefusal(
        this.pipeline.ledger,
        this.config,
        next,
        cluster?.idsRecordedByOthers.bind(cluster),
        this.history,
      ))
    );
  }

  /**
   * Makes the inbox folders of `next` when the reload would restart the watcher on them. One that cannot be
   * made (a file in its place) refuses the configuration here, before anything changed: the watcher, once
   * closed for the restart, would not start again, and no inbox would be watched until the next start.
   */
  async makeInboxFolders(next: Readonly<Config>): Promise<void> {
    if (!restartsWatcher(this.config, next)) return;
    for (const folder of inboxFolders(next)) await makeInboxFolder(folder.dir);
  }

  /** A new configuration (SIGHUP): keys, rates and companies change without losing in-flight work. */
  async reload(next: Readonly<Config>): Promise<void> {
    const before = this.config;
    // a company whose id or NIT changes takes no file from its check to its change (company/take-gate.ts)
    const decided = await this.pipeline.companies.deciding(next);
    try {
      const refusal = await this.reloadRefusal(next);
      if (refusal !== undefined) throw refusal;
      await this.makeInboxFolders(next);
      this.config = next;
      this.history.took(next);
      // each run's pull reads the new settings and pulls at once (its pause lifted) when reloaded
      this.puller.setConfig(next);
      await this.pipeline.update(next);
    } finally {
      decided();
    }
    if (!next.received.enabled)
      this.logger.info(
        { enabled: false },
        'received documents pull is disabled (received.enabled: false)',
      );
    await warnRemovedWithOpenFiles(this.pipeline.ledger, before, next, this.logger);
    warnSharedNits(next, this.logger);
    await this.recordPauses();
    const [was, now] = [inboxFolders(before), inboxFolders(next)];
    const unwatched = was.map((f) => f.dir).filter((dir) => !now.some((f) => f.dir === dir));
    if (unwatched.length > 0) {
      // files being sent from there finish in the outbox folder they began in (fixed in the ledger when taken)
      this.logger.warn(
        { folders: unwatched },
        'these inbox folders are no longer watched: a file dropped there now waits until it is moved to a watched folder',
      );
    }
    if (restartsWatcher(before, next)) {
      this.restarting = true;
      try {
        await this.watcher?.close();
        await this.watching;
        await this.startWatcher();
      } finally {
        this.restarting = false;
      }
    }
    if (this.operatorSurface !== undefined && next.http === undefined) {
      const closing = this.operatorSurface;
      this.operatorSurface = undefined;
      await closing.close();
      this.logger.warn({ keys: ['http'] }, 'http was removed: the operator listener is closed');
    } else if (this.operatorSurface !== undefined) {
      this.operatorSurface.reload(before, next, this.logger);
    } else if (next.http !== undefined) {
      this.logger.warn(
        { keys: ['http'] },
        'http was added: the operator listener starts when the daemon restarts',
      );
    }
    this.alerting.reload(next);
    this.logger.info({ config: redactConfig(next) }, 'configuration reloaded');
    const later = restartOnly(before, next);
    if (later.length > 0) {
      this.logger.warn(
        { keys: later, baseUrl: this.pipeline.service.baseUrl },
        `${later.join(', ')} changed: this applies only when the daemon restarts (the next start); until then the old settings stay in force`,
      );
    }
  }

  /** Re-queued work (edoc-bridge retry) or anything else that made documents due. */
  wake(): void {
    this.pipeline.wake();
  }

  /** Waits until every report is written (tests). */
  flushReports(): Promise<void> {
    return this.pipeline.flushReports();
  }

  /** Stop watching → finish (or park) in-flight work → flush the outbox → close the ledger. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    await this.pipeline.close([
      // first: probes see "not ready" by the connection refused, not by a half-stopped daemon
      ['operator listener', () => this.operatorSurface?.close()],
      [
        'watcher',
        async () => {
          this.strays?.close();
          await this.watcher?.close();
          await this.watching;
        },
      ],
      ['received', () => this.pipeline.companies.stopJobs()],
      ['alerting', () => this.alerting.close()],
    ]);
    this.logger.info('stopped');
  }
}
