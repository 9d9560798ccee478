/**
 * The one pipeline the daemon and `edoc-bridge submit` both run: intake → ledger → per-company
 * senders → reports. Its parts are built by the composition root (root/open-pipeline.ts), which opens
 * the ledger (the state folder's lock) and the service first; `start()` starts them in order (the
 * intake worker, the master data, the last run's marks, the archive watch, then the company runs with
 * their recovery), and `close()` ends them in order. What feeds it differs: the daemon offers it the
 * files its inbox watcher finds; `submit` takes the one file it was named and waits until that file is
 * final. Closing runs every step even when one before it failed.
 */
import { EventEmitter } from 'node:events';
import type { Config } from '../config/schema.js';
import type { LedgerPort } from '../ledger/port.js';
import type { StorageWatch } from '../storage/storage-watch.js';
import type { AppLogger } from '../log/logger.js';
import type { ServiceClient } from '../service/client.js';
import type { ServiceHealth } from '../health/service-health.js';
import type { CompanySender, SenderEvent, SenderView } from '../submit/company-sender.js';
import { senderMaker } from './pipeline-senders.js';
import { MappingCache } from '../intake/mapping-cache.js';
import type { PartSets } from '../intake/part-sets.js';
import type { ArchiveWatch } from './archive-watch.js';
import type { MasterData } from '../intake/master-data.js';
import type { IntakeContext } from '../intake/intake.js';
import { takeFile } from './pipeline-take.js';
import type { IntakeReader } from '../intake/intake-reader.js';
import type { IntakeQueue } from '../intake/intake-queue.js';
import { closeInOrder, type CloseStep } from './close-steps.js';
import type { CompanyRuns } from '../company/company-runs.js';
import type { PipelineFile, PipelineOptions, PipelineService, Taken } from './pipeline-types.js';
import type { FileReport, ReportScheduler } from './report-scheduler.js';
import { followLastRun, markEnded } from './run-marks.js';

export type { PipelineFile, PipelineOptions, PipelineService, Taken } from './pipeline-types.js';
export type { CloseStep } from './close-steps.js';

/** What the pipeline runs, built by the composition root (root/open-pipeline.ts). */
export interface PipelineParts {
  /** Opened (the state folder's lock taken, or the PostgreSQL ledger with this node's fence). */
  ledger: LedgerPort;
  service: PipelineService;
  client: ServiceClient;
  /** Whether the service answers, fed by every call of `client` (readiness, metrics and alerts read it). */
  health: ServiceHealth;
  /** Which companies run here: all (SQLite), or those whose lease this node holds (ledger.url). */
  companies: CompanyRuns;
  storage: StorageWatch;
  /** The files waiting to be taken in, how many at once, and those a full disk holds (intake-queue.ts). */
  intake: IntakeQueue;
  /** Reads input files on a worker thread (built code only; from TypeScript sources they are read in-process). */
  reader: IntakeReader | undefined;
  /** Exports in two files: each part held until its partner is complete (part-sets.ts). */
  sets: PartSets;
  archived: ArchiveWatch;
  /** The master-data tables: their folders watched, the versions the intake maps with. */
  master: MasterData;
  reports: ReportScheduler;
}

export class Pipeline {
  private readonly mappings = new MappingCache();
  private readonly intake: IntakeQueue;
  private readonly reader: IntakeReader | undefined;
  private readonly sets: PartSets;
  private readonly stopping = new AbortController();
  private readonly storage: StorageWatch;
  private readonly archived: ArchiveWatch;
  /** Told of a file whose intake was dropped as changed (the daemon's watcher offers it again). */
  onChanged?: (path: string, since: number) => void;
  private readonly master: MasterData;
  private readonly reports: ReportScheduler;
  private closing: Promise<void> | undefined;
  /** This run is marked as sending in the state folder (run-marks.ts). */
  private marked = false;
  readonly ledger: LedgerPort;
  readonly service: PipelineService;
  readonly client: ServiceClient;
  readonly health: ServiceHealth;
  readonly companies: CompanyRuns;
  /** What the senders tell (a company paused, a document final): the alerts listen. */
  readonly senderEvents = new EventEmitter<{ event: [SenderEvent] }>();
  /** The numbering-range check of each document's own number at intake (the daemon's range watch); none when absent. */
  checkNumber: IntakeContext['checkNumber'];
  /** Told when a file's stored documents no longer hold their numbers (the daemon's range watch); none when absent. */
  numbersFreed: IntakeContext['onNumbersFreed'];

  constructor(
    private current: Readonly<Config>,
    private readonly logger: AppLogger,
    parts: PipelineParts,
    private readonly options: PipelineOptions = {},
  ) {
    this.ledger = parts.ledger;
    this.service = parts.service;
    this.client = parts.client;
    this.health = parts.health;
    this.companies = parts.companies;
    this.storage = parts.storage;
    this.intake = parts.intake;
    this.reader = parts.reader;
    this.sets = parts.sets;
    this.archived = parts.archived;
    this.master = parts.master;
    this.reports = parts.reports;
    options.signal?.addEventListener('abort', () => this.stopping.abort(), { once: true });
  }

  /** The configuration in force (a reload replaces it; the parts' closures read it here). */
  get config(): Readonly<Config> {
    return this.current;
  }

  /** Starts the intake worker, the master data, the archive watch and the company runs (recovery first). */
  async start(): Promise<void> {
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
        companies: () => this.config.companies,
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
          ...(this.numbersFreed ? { onNumbersFreed: this.numbersFreed } : {}),
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
    const before = this.current;
    this.current = next;
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
