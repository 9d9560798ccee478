/**
 * The one pipeline the daemon and `edoc-bridge submit` both run: intake → ledger → per-company
 * senders → reports, wired here once. Opening it takes the state folder's lock, resolves the service
 * (or starts the embedded emulator), recovers the documents a stopped run left `sending`, and starts
 * the storage watch, the archive watch, the report scheduler and the senders. What feeds it differs:
 * the daemon offers it the files its inbox watcher finds; `submit` takes the one file it was named
 * and waits until that file is final. Closing runs every step even when one before it failed.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import { secretScrubberOf } from '../config/secrets.js';
import { openLedger } from '../ledger/open.js';
import type { LedgerPort } from '../ledger/port.js';
import { StorageWatch } from '../storage/storage-watch.js';
import type { AppLogger } from '../log/logger.js';
import type { ServiceClient } from '../service/client.js';
import { ServiceHealth } from '../health/service-health.js';
import type { CompanySender, SenderEvent, SenderView } from '../submit/company-sender.js';
import { senderMaker } from './pipeline-senders.js';
import { MappingCache } from '../intake/mapping-cache.js';
import { PartSets } from '../intake/part-sets.js';
import { ArchiveWatch } from './archive-watch.js';
import { MasterData } from '../intake/master-data.js';
import { resolveServiceUrl, serviceClientFor, type ResolvedService } from './embedded.js';
import { inInboxFolder, outboxDir } from '../intake/folders.js';
import type { IntakeContext } from '../intake/intake.js';
import { takeFile } from './pipeline-take.js';
import { IntakeReader } from '../intake/intake-reader.js';
import { INTAKES, IntakeQueue } from '../intake/intake-queue.js';
import { closeInOrder, type CloseStep } from './close-steps.js';
import { CompanyRuns } from '../company/company-runs.js';
import type { PipelineFile, PipelineOptions, Taken } from './pipeline-types.js';
import { ReportScheduler, type FileReport } from './report-scheduler.js';
import { followLastRun, markEnded } from './run-marks.js';

export type { PipelineFile, PipelineOptions, Taken } from './pipeline-types.js';
export type { CloseStep } from './close-steps.js';

export class Pipeline {
  private readonly mappings = new MappingCache();
  /** The files waiting to be taken in, how many at once, and those a full disk holds (intake-queue.ts). */
  private readonly intake: IntakeQueue;
  /** Reads input files on a worker thread (built code only; from TypeScript sources they are read in-process). */
  private readonly reader: IntakeReader | undefined;
  /** Exports in two files: each part held until its partner is complete (part-sets.ts). */
  private readonly sets: PartSets;
  private readonly stopping = new AbortController();
  private readonly storage: StorageWatch;
  private readonly archived: ArchiveWatch;
  /** Told of a file whose intake was dropped as changed (the daemon's watcher offers it again). */
  onChanged?: (path: string, since: number) => void;
  /** The master-data tables: their folders watched, the versions the intake maps with. */
  private readonly master: MasterData;
  private readonly reports: ReportScheduler;
  private closing: Promise<void> | undefined;
  /** This run is marked as sending in the state folder (run-marks.ts). */
  private marked = false;
  readonly client: ServiceClient;
  /** Whether the service answers, fed by every call of `client` (readiness, metrics and alerts read it). */
  readonly health = new ServiceHealth();
  /** What the senders tell (a company paused, a document final): the alerts listen. */
  readonly senderEvents = new EventEmitter<{ event: [SenderEvent] }>();
  /** The numbering-range check of each document's own number at intake (the daemon's range watch); none when absent. */
  checkNumber: IntakeContext['checkNumber'];

  private constructor(
    private config: Readonly<Config>,
    private readonly logger: AppLogger,
    readonly ledger: LedgerPort,
    readonly service: ResolvedService,
    private readonly options: PipelineOptions,
    /** Which companies run here: all (SQLite), or those whose lease this node holds (ledger.url). */
    readonly companies: CompanyRuns,
  ) {
    this.sets = new PartSets(logger, () => this.config.paths.state);
    this.client = serviceClientFor(config, service);
    this.client.observe((call) => {
      if (call.httpStatus !== undefined) this.health.noteAnswer();
      else if (!call.aborted && call.outcome === 'transient')
        this.health.noteFailure(`${call.op}: no answer`);
    });
    this.intake = new IntakeQueue(
      logger,
      (file) => this.take(file),
      options.intakeConcurrency ?? INTAKES,
    );
    this.reader = IntakeReader.available()
      ? new IntakeReader(logger, { stuckAfterMs: () => this.config.read.stuckAfter })
      : undefined;
    options.signal?.addEventListener('abort', () => this.stopping.abort(), { once: true });
    this.storage = new StorageWatch({
      probe: () => ledger.probeWrite(),
      logger,
      dirs: [config.paths.state, config.paths.outbox],
    });
    this.storage.onResume(() => {
      this.intake.resume();
      this.wake();
    });
    // The closures read the current configuration (it changes on SIGHUP).
    this.archived = new ArchiveWatch({
      ledger,
      logger,
      watchMs: () => this.config.watch.archiveWatchMs,
      intervalMs: config.watch.stableMs > 0 ? config.watch.stableMs : 1_000,
      onFlagged: (id) => this.reports.touch(id),
      companies,
    });
    this.master = new MasterData({ ledger, logger, config: () => this.config });
    this.reports = new ReportScheduler({
      ledger,
      logger,
      storage: this.storage,
      onArchived: (id, archivedPath) =>
        void this.archived
          .add(id, archivedPath)
          .catch((err: unknown) =>
            logger.warn({ err, file: archivedPath }, 'could not watch an archived original'),
          ),
      outboxDir: (company, kind) => outboxDir(this.config, company, kind),
      // a file given to `edoc-bridge submit` stays where the operator keeps it
      archives: (file) => inInboxFolder(this.config, file),
      companies,
      scrub: (text) => secretScrubberOf(this.config).scrub(text),
    });
  }

  /** Opens the ledger (the state folder's lock), starts the service (or the embedded emulator), recovers, starts the senders. */
  static async open(
    config: Readonly<Config>,
    logger: AppLogger,
    options: PipelineOptions = {},
  ): Promise<Pipeline> {
    // a cluster node's companies start when their leases are taken (begin); its events reach the pipeline then
    let built: Pipeline | undefined;
    const companies = await CompanyRuns.for(
      config,
      logger,
      () => (built?.config ?? config).companies,
    );
    const cluster = companies.cluster;
    // the fence: every pipeline write checks this node's lease of the company in the same transaction
    const ledger = await openLedger(
      config,
      cluster === undefined
        ? {}
        : {
            fence: cluster.fence,
            program: cluster.applicationName,
            idleInTransactionTimeoutMs: cluster.idleInTransactionTimeoutMs,
          },
    );
    for (const note of ledger.notes) logger.warn({ state: config.paths.state }, note);
    // with ledger.url no ledger makes the state folder, and the range watch and the alerts keep files there
    if (config.ledger.url !== undefined)
      mkdirSync(config.paths.state, { recursive: true, mode: 0o700 });
    let service: ResolvedService | undefined;
    let pipeline: Pipeline | undefined;
    try {
      service = await resolveServiceUrl(config, { logger, publish: options.publish === true });
      pipeline = new Pipeline(config, logger, ledger, service, options, companies);
      built = pipeline;
      await pipeline.begin();
      return pipeline;
    } catch (err) {
      // begin() may have started senders: stop them too, or their loops keep the process alive and crash on the closed ledger.
      if (pipeline) await pipeline.close();
      else {
        await service?.close();
        await ledger.close();
        await companies.leave();
      }
      throw err;
    }
  }

  private async begin(): Promise<void> {
    this.options.onStart?.(this.service);
    this.reader?.start();
    await this.master.start();
    const clustered = this.companies.cluster !== undefined;
    // one process (SQLite): wait out the last run's requests on this state folder, and mark this one
    if (!clustered)
      this.marked = followLastRun(this.config.paths.state, this.companies, this.logger);
    if (!clustered) await this.archived.start();
    await this.companies.start(
      {
        ledger: this.ledger,
        logger: this.logger,
        sender: senderMaker({
          ledger: this.ledger,
          client: () => this.options.watchClient?.(this.client) ?? this.client,
          logger: this.logger,
          storage: this.storage,
          config: () => this.config,
          touch: (id) => this.reports.touch(id),
          events: this.senderEvents,
          clustered,
        }),
        reports: this.reports,
        company: (alias) =>
          this.sends(alias) ? this.config.companies.find((c) => c.alias === alias) : undefined,
        stopping: () => this.closing !== undefined,
        drainMs: this.options.drainTimeoutMs,
      },
      this.config.companies,
    );
    // a cluster node re-arms the archive watch of the companies its first heartbeat took
    if (clustered) await this.archived.start();
  }

  /** What start-up recovery found left `sending` by a stopped run (cluster: by the last owners of the companies taken). */
  get recovered(): { resent: number; inDoubt: number } {
    return this.companies.recovered;
  }

  /** Whether this process runs the company now: always with one node; in a cluster, while it holds the lease. */
  owns(alias: string): boolean {
    return this.companies.owns(alias);
  }

  /**
   * Whether a new request may start for the company here: always with one node; in a cluster, while its
   * lease is held, not being handed over, and renewed recently enough (the self-fence). The pull, the
   * range watch and the idle probe ask this, as the sender does.
   */
  mayStart(alias: string): boolean {
    return this.companies.mayStart(alias);
  }

  private sends(alias: string): boolean {
    return this.options.companies === undefined || this.options.companies.includes(alias);
  }

  /** What each company's sender is doing now (the console). */
  senderViews(): SenderView[] {
    return this.companies.views();
  }

  /** True while a full disk (or a ledger that cannot be written) holds intake and submissions (readiness). */
  get storagePaused(): boolean {
    return this.storage.paused;
  }

  /** The company's sender, when this pipeline sends for it. */
  sender(alias: string): CompanySender | undefined {
    return this.companies.sender(alias);
  }

  /** Queues a ready file for intake (waits while the intake is full: back-pressure on the watcher). */
  async offer(file: PipelineFile): Promise<void> {
    // an export in two files: a part waits for its partner, and the set is taken as one unit
    const mapping = await this.mappings.of(this.config, file.kind).catch(() => undefined);
    const unit = mapping?.parts === undefined ? file : await this.sets.add(file, mapping.parts);
    if (unit === undefined) return;
    await this.intake.offer(unit);
  }

  /** Reads the file into the ledger and wakes its company's sender (pipeline-take.ts). */
  take(file: PipelineFile): Promise<Taken> {
    return takeFile(
      {
        config: this.config,
        signal: this.stopping.signal,
        storage: this.storage,
        defer: (f) => this.intake.defer(f),
        changed: (path, since) => this.onChanged?.(path, since),
        companies: this.companies,
        intake: {
          ledger: this.ledger,
          config: this.config,
          logger: this.logger,
          mapping: (kind) => this.mappings.of(this.config, kind),
          masterTables: (mapping) => this.master.tablesFor(mapping),
          onDocuments: (alias) => this.companies.get(alias)?.wake(),
          onFileChanged: (id) => this.reports.touch(id),
          signal: this.stopping.signal,
          ...(this.reader ? { reader: this.reader } : {}),
          ...(this.options.today ? { today: this.options.today } : {}),
          ...(this.checkNumber ? { checkNumber: this.checkNumber } : {}),
        },
      },
      file,
    );
  }

  /** Writes the file's report now (settled when every document is final) and returns what it wrote. */
  report(fileId: number): Promise<FileReport> {
    return this.reports.reportNow(fileId);
  }

  /** Waits until every report is written. */
  flushReports(): Promise<void> {
    return this.reports.flush();
  }

  /** Re-queued work (edoc-bridge retry) or anything else that made documents due. */
  wake(): void {
    this.companies.wake();
  }

  /** A new configuration (SIGHUP): keys, rates and companies change without losing in-flight work. */
  async update(next: Readonly<Config>): Promise<void> {
    const before = this.config;
    this.config = next;
    this.mappings.clear();
    await this.companies.reload(next, (alias) => this.sends(alias) && this.owns(alias), before);
  }

  /**
   * Stop reading → `first` (the daemon's watcher and puller) → finish (or park) in-flight work → flush
   * the outbox → close the ledger. Each step runs even when an earlier one failed. Idempotent.
   */
  close(first: readonly CloseStep[] = []): Promise<void> {
    this.closing ??= this.doClose(first);
    return this.closing;
  }

  private async doClose(first: readonly CloseStep[]): Promise<void> {
    this.stopping.abort();
    this.sets.close();
    const drainMs = this.options.drainTimeoutMs; // undefined: the sender's default
    const steps: CloseStep[] = [
      ...first,
      ['archive watch', () => this.archived.close()],
      ['master data', () => this.master.close()],
      ['storage', () => this.storage.close()],
      ['intake', () => this.intake.idle()],
      ['intake worker', () => this.reader?.close()],
      // cluster: no more claims, while the held leases stay renewed until the senders drained and the reports are out
      ['cluster claims', () => this.companies.quiesce()],
      ['senders', () => this.companies.close(drainMs)],
      ['reports', () => this.reports.close()],
      // released at once: another node takes the companies at its next beat
      ['cluster', () => this.companies.leave()],
      ['client', () => this.client.close()],
      // every request of this run has ended (the client's pool is closed): the next run waits a window past now
      [
        'run marks',
        () => {
          if (this.marked) markEnded(this.config.paths.state);
        },
      ],
      ['service', () => this.service.close()],
      ['ledger', () => this.ledger.close()],
    ];
    await closeInOrder(steps, this.logger);
  }
}
