/**
 * The daemon: wires watch → intake → ledger → per-company senders → reports,
 * and closes in order (stop watching → finish or park the queue → flush the
 * outbox → close the ledger). Only the CLI touches signals and process.exit.
 */
import { unlink } from 'node:fs/promises';
import PQueue from 'p-queue';
import type { CompanyConfig, Config } from '../config/schema.js';
import { redactConfig } from '../config/redact.js';
import { secretScrubberOf } from '../config/secrets.js';
import { Ledger } from '../ledger/ledger.js';
import { StorageWatch } from '../ledger/storage-watch.js';
import type { AppLogger } from '../log/logger.js';
import { loadMapping } from '../map/load-mapping.js';
import { ReceivedScheduler } from '../received/scheduler.js';
import type { Mapping } from '../map/mapping-types.js';
import { ServiceClient } from '../service/client.js';
import { resolveServiceUrl, type ResolvedService } from '../service/embedded.js';
import { CompanySender } from '../submit/company-sender.js';
import type { DocumentKind } from '../kinds/index.js';
import { InboxWatcher, type ReadyFile } from '../watch/inbox-watcher.js';
import { inboxFolders, inInboxFolder, outboxDir } from './folders.js';
import { recoverSending } from './recover.js';
import { intakeFile, type IntakeOutcome } from './intake.js';
import { ReportScheduler } from './report-scheduler.js';
import { ArchiveWatch } from './archive-watch.js';

export interface DaemonOptions {
  /** How long close() lets in-flight requests finish before aborting them. @defaultValue 10000 */
  drainTimeoutMs?: number;
  /** Input files read at once (a huge file never holds the others back). @defaultValue 2 */
  intakeConcurrency?: number;
  /** Pinned "today" for validation (tests). */
  today?: string;
}

export class Daemon {
  private readonly senders = new Map<string, CompanySender>();
  private readonly mappings = new Map<string, Promise<Mapping>>();
  private readonly intake: PQueue;
  private readonly stopping = new AbortController();
  private watcher: InboxWatcher | undefined;
  private watching: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private readonly fileNames = new Map<number, string>();
  private readonly intakeByPath = new Map<string, Promise<void>>();
  private readonly received: ReceivedScheduler;
  /** Ready files whose intake a full disk stopped (or that came while paused): taken again when space returns. */
  private readonly deferred = new Map<string, ReadyFile>();

  private constructor(
    private config: Readonly<Config>,
    private readonly logger: AppLogger,
    readonly ledger: Ledger,
    private readonly service: ResolvedService,
    private readonly client: ServiceClient,
    private readonly reports: ReportScheduler,
    private readonly storage: StorageWatch,
    private readonly archived: ArchiveWatch,
    private readonly options: DaemonOptions,
  ) {
    this.intake = new PQueue({ concurrency: options.intakeConcurrency ?? 2 });
    storage.onResume(() => {
      const files = [...this.deferred.values()];
      this.deferred.clear();
      for (const file of files) void this.intake.add(() => this.take(file));
      this.wake();
    });
    // Received-document pulls share each company's request window with its submissions.
    const rated = {
      listReceived: async (...args: Parameters<ServiceClient['listReceived']>) => {
        const alias = this.config.companies.find((c) => String(c.id) === String(args[0].id))?.alias;
        const sender = alias === undefined ? undefined : this.senders.get(alias);
        await sender?.acquireSlot();
        return client.listReceived(...args);
      },
    };
    this.received = new ReceivedScheduler({ ledger, client: rated, config, logger });
  }

  /** Opens the ledger (the state folder's lock), starts the service (or the embedded emulator), recovers, watches. */
  static async start(config: Readonly<Config>, logger: AppLogger, options: DaemonOptions = {}): Promise<Daemon> {
    const ledger = Ledger.open(config.paths.state);
    for (const note of ledger.notes) logger.warn({ state: config.paths.state }, note);
    let service: ResolvedService | undefined;
    let daemon: Daemon | undefined;
    try {
      service = await resolveServiceUrl(config, { logger, publish: true });
      const client = new ServiceClient({ baseUrl: service.baseUrl, paths: config.service.paths, timeoutMs: config.service.timeoutMs });
      const storage = new StorageWatch({ probe: () => ledger.probeWrite(), logger, dirs: [config.paths.state, config.paths.outbox] });
      // The closures read the daemon's current configuration (it changes on SIGHUP).
      const current = (): Readonly<Config> => daemon?.config ?? config;
      const archived = new ArchiveWatch({ ledger, logger, watchMs: () => current().watch.archiveWatchMs,
        intervalMs: config.watch.stableMs > 0 ? config.watch.stableMs : 1_000, onFlagged: (id) => reports.touch(id) });
      const reports = new ReportScheduler({ ledger, logger, storage,
        onArchived: (id, archivedPath) => void archived.add(id, archivedPath).catch((err: unknown) =>
          logger.warn({ err, file: archivedPath }, 'could not watch an archived original')),
        outboxDir: (company, kind) => outboxDir(daemon?.config ?? config, company, kind),
        // a file given to `edoc-bridge submit` stays where the operator keeps it
        archives: (file) => inInboxFolder(daemon?.config ?? config, file),
        scrub: (text) => secretScrubberOf(daemon?.config ?? config).scrub(text) });
      daemon = new Daemon(config, logger, ledger, service, client, reports, storage, archived, options);
      await daemon.begin();
      return daemon;
    } catch (err) {
      // begin() may have started senders (e.g. the inbox could not be created): stop them too, or their
      // loops keep the process alive and then crash on the closed ledger.
      if (daemon) await daemon.close();
      else {
        await service?.close();
        ledger.close();
      }
      throw err;
    }
  }

  private async begin(): Promise<void> {
    const { config, logger, ledger } = this;
    logger.info({ config: redactConfig(config) }, 'effective configuration');
    if (this.service.embedded) {
      logger.warn({ baseUrl: this.service.baseUrl },
        'SERVICE IS THE EMBEDDED EMULATOR: documents go to the local emulator, NOT to the tax authority');
    } else {
      logger.info({ baseUrl: this.service.baseUrl }, 'submitting to the service');
    }
    recoverSending(ledger, logger);
    await this.archived.start();
    for (const file of [...ledger.filesToSettle(), ...ledger.openFiles()]) {
      this.fileNames.set(file.id, file.name);
      this.reports.touch(file.id);
    }
    for (const company of config.companies) this.addSender(company);
    await this.startWatcher();
    this.received.start();
  }

  private addSender(company: CompanyConfig): void {
    const sender = new CompanySender({
      ledger: this.ledger, client: this.client, company, retry: this.config.retry, pos: this.config.kinds.pos,
      logger: this.logger, fileName: (id) => this.fileName(id), storage: this.storage,
      onChanged: (ids) => { for (const id of ids) this.reports.touch(id); },
    });
    this.senders.set(company.alias, sender);
    sender.start();
  }

  private async startWatcher(): Promise<void> {
    const folders = inboxFolders(this.config);
    const watcher = new InboxWatcher({ folders, stableMs: this.config.watch.stableMs, usePolling: this.config.watch.usePolling,
      doneMarker: this.config.watch.doneMarker, logger: this.logger });
    await watcher.start();
    this.watcher = watcher;
    this.logger.info({ folders: folders.map((f) => f.dir), stableMs: this.config.watch.stableMs }, 'watching the inbox');
    this.watching = this.consume(watcher);
  }

  private async consume(watcher: InboxWatcher): Promise<void> {
    for await (const file of watcher) {
      if (this.stopping.signal.aborted) break;
      // Back-pressure: do not pull more ready files than the intake can read.
      await this.intake.onSizeLessThan(this.intake.concurrency);
      void this.intake.add(() => this.takeInTurn(file));
    }
  }

  /**
   * One intake per path at a time: new content of a file whose earlier read is still running (and will
   * be dropped as changed) is read after it, so the two never share the path's ledger rows.
   */
  private takeInTurn(file: ReadyFile): Promise<void> {
    const before = this.intakeByPath.get(file.path) ?? Promise.resolve();
    const mine = before.then(() => this.take(file));
    this.intakeByPath.set(file.path, mine);
    return mine.finally(() => {
      if (this.intakeByPath.get(file.path) === mine) this.intakeByPath.delete(file.path);
    });
  }

  private async take(file: ReadyFile): Promise<void> {
    const company = this.config.companies.find((c) => c.alias === file.company);
    if (!company || this.stopping.signal.aborted) return;
    if (this.storage.paused) {
      this.deferred.set(file.path, file);
      return;
    }
    try {
      const result = await intakeFile({
        ledger: this.ledger, config: this.config, logger: this.logger,
        mapping: (kind) => this.mapping(kind),
        onDocuments: (alias) => this.senders.get(alias)?.wake(),
        onFileChanged: (id) => this.reports.touch(id),
        signal: this.stopping.signal,
        ...(this.options.today ? { today: this.options.today } : {}),
      }, { path: file.path, kind: file.kind, company, size: file.size, mtimeMs: file.mtimeMs,
        ...(file.originalName === undefined ? {} : { originalName: file.originalName }) });
      if (result.fileId !== undefined) this.fileNames.set(result.fileId, file.path.split(/[\\/]/).pop() ?? file.path);
      // the marker has done its work once the file is in the ledger for good; a file that changed, or whose read was
      // interrupted by shutdown, keeps it (taken again)
      if (file.marker !== undefined && MARKER_DONE.has(result.outcome)) await removeMarker(file.marker, this.logger);
    } catch (err) {
      // A full disk: the file is taken again (read on from the ledger) when space returns.
      if (this.storage.report(err, 'intake')) {
        this.deferred.set(file.path, file);
        return;
      }
      // One bad file never takes the daemon down.
      this.logger.error({ err, file: file.path, kind: file.kind, company: file.company }, 'intake failed');
    }
  }

  private mapping(kind: DocumentKind): Promise<Mapping | undefined> {
    const file = this.config.kinds[kind].mapping;
    if (file === undefined) return Promise.resolve(undefined);
    let loaded = this.mappings.get(file);
    if (!loaded) {
      loaded = loadMapping(file);
      this.mappings.set(file, loaded);
      loaded.catch(() => this.mappings.delete(file));
    }
    return loaded;
  }

  private fileName(fileId: number): string {
    let name = this.fileNames.get(fileId);
    if (name === undefined) {
      name = this.ledger.getFile(fileId)?.name ?? `#${fileId}`;
      this.fileNames.set(fileId, name);
    }
    return name;
  }

  /** A new configuration (SIGHUP): keys, rates and companies change without losing in-flight work. */
  async reload(next: Readonly<Config>): Promise<void> {
    const before = this.config;
    this.config = next;
    this.mappings.clear();
    for (const company of next.companies) {
      const sender = this.senders.get(company.alias);
      if (sender) sender.update(company, next.retry);
      else this.addSender(company);
    }
    for (const [alias, sender] of this.senders) {
      if (!next.companies.some((c) => c.alias === alias)) {
        this.senders.delete(alias);
        await sender.close();
      }
    }
    const [was, now] = [inboxFolders(before), inboxFolders(next)];
    const unwatched = was.map((f) => f.dir).filter((dir) => !now.some((f) => f.dir === dir));
    if (unwatched.length > 0) {
      // files being sent from there finish in the outbox folder they began in (fixed in the ledger when taken)
      this.logger.warn({ folders: unwatched }, 'these inbox folders are no longer watched: a file dropped there now waits until it is moved to a watched folder');
    }
    if (JSON.stringify(was) !== JSON.stringify(now) || JSON.stringify(before.watch) !== JSON.stringify(next.watch)) {
      await this.watcher?.close();
      await this.watching;
      await this.startWatcher();
    }
    this.received.reload(next);
    this.logger.info({ config: redactConfig(next) }, 'configuration reloaded');
    const later = restartOnly(before, next);
    if (later.length > 0) {
      this.logger.warn({ keys: later, baseUrl: this.service.baseUrl },
        `${later.join(', ')} changed: this applies only when the daemon restarts (the next start); until then the old settings stay in force`);
    }
  }

  /** Re-queued work (edoc-bridge retry) or anything else that made documents due. */
  wake(): void {
    for (const sender of this.senders.values()) sender.wake();
  }

  /** Waits until every report is written (tests, submit command). */
  flushReports(): Promise<void> {
    return this.reports.flush();
  }

  /** Stop watching → finish (or park) in-flight work → flush the outbox → close the ledger. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    const drainMs = this.options.drainTimeoutMs ?? 10_000;
    const steps: [string, () => Promise<unknown> | unknown][] = [
      ['watcher', async () => { this.stopping.abort(); await this.watcher?.close(); await this.watching; }],
      ['archive watch', () => this.archived.close()],
      ['storage', () => this.storage.close()],
      ['intake', () => this.intake.onIdle()],
      ['received', () => this.received.close()],
      ['senders', () => Promise.all([...this.senders.values()].map((s) => s.close(drainMs)))],
      ['reports', () => this.reports.close()],
      ['client', () => this.client.close()],
      ['service', () => this.service.close()],
      ['ledger', () => this.ledger.close()],
    ];
    // Each step runs even when an earlier one failed.
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (err) {
        this.logger.error({ err, step: name }, 'error while stopping');
      }
    }
    this.logger.info('stopped');
  }
}

const MARKER_DONE: ReadonlySet<IntakeOutcome> = new Set<IntakeOutcome>(['read', 'resumed', 'duplicate-file', 'failed-read']);

async function removeMarker(marker: string, logger: AppLogger): Promise<void> {
  try {
    await unlink(marker);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn({ err, file: marker }, 'could not delete a done marker');
  }
}

/** Settings a running daemon keeps until it restarts (the service client, the ledger, the log file). */
function restartOnly(before: Readonly<Config>, next: Readonly<Config>): string[] {
  const keys: [string, (c: Readonly<Config>) => unknown][] = [
    ...Object.keys({ ...before.service, ...next.service }).map((k): [string, (c: Readonly<Config>) => unknown] =>
      [`service.${k}`, (c) => (c.service as Record<string, unknown>)[k]]),
    ['emulator', (c) => c.emulator], ['paths.state', (c) => c.paths.state], ['log.file', (c) => c.log.file],
  ];
  return keys.filter(([, get]) => JSON.stringify(get(before)) !== JSON.stringify(get(next))).map(([key]) => key);
}
