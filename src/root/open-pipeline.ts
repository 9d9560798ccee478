/**
 * The composition root of the send path, for the daemon and `edoc-bridge submit` alike: the one place
 * the pipeline's object graph is built. In order: which companies run here (a cluster node, or every
 * company), the ledger (the state folder's lock; with `ledger.url`, this node's fence), the service and
 * its client (service.ts), the parts (storage watch, intake queue and worker, part sets, archive watch,
 * master data, report scheduler), then the pipeline, started (daemon/pipeline.ts `start`: recovery, the
 * company runs). A failure on the way closes what was opened, in the pipeline's closing order.
 */
import { mkdirSync } from 'node:fs';
import { CompanyRuns } from '../company/company-runs.js';
import type { Config } from '../config/schema.js';
import { secretScrubberOf } from '../config/secrets.js';
import { ArchiveWatch } from '../daemon/archive-watch.js';
import { Pipeline, type PipelineOptions, type PipelineParts } from '../daemon/pipeline.js';
import { ReportScheduler } from '../daemon/report-scheduler.js';
import { inInboxFolder, outboxDir } from '../intake/folders.js';
import { betweenLargeReads } from '../intake/heap-growth.js';
import { INTAKES, IntakeQueue } from '../intake/intake-queue.js';
import { IntakeReader } from '../intake/intake-reader.js';
import { MasterData } from '../intake/master-data.js';
import { PartSets } from '../intake/part-sets.js';
import { openLedger } from '../ledger/open.js';
import { takenUnderRefusal } from '../company/taken-under.js';
import type { AppLogger } from '../log/logger.js';
import { StorageWatch } from '../storage/storage-watch.js';
import { healthOf, openService, type OpenedService, type ResolvedService } from './service.js';

export interface OpenPipelineOptions extends PipelineOptions {
  /**
   * Publish the embedded emulator's address in the state folder, so commands run beside this process
   * use it (the daemon). @defaultValue false
   */
  publish?: boolean;
  /** Called once the service is known, before recovery (the daemon's log lines, submit's note). */
  onStart?(service: ResolvedService): void;
  /** Input files read at once (intake/intake-queue.ts INTAKES). @defaultValue 32 */
  intakeConcurrency?: number;
}

/** Opens the ledger (the state folder's lock), reaches the service (or starts the embedded emulator), builds and starts the pipeline. */
export async function openPipeline(
  config: Readonly<Config>,
  logger: AppLogger,
  options: OpenPipelineOptions = {},
): Promise<Pipeline> {
  // a cluster node's companies start when their leases are taken (start); its events reach the pipeline then
  let built: Pipeline | undefined;
  /** The configuration in force: the pipeline's once built (a reload replaces it). */
  const current = (): Readonly<Config> => built?.config ?? config;
  const companies = await CompanyRuns.for(config, logger, () => current().companies);
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
  let reached: OpenedService | undefined;
  try {
    // an alias whose open files were taken under another NIT would issue their rest under another company
    const refusal = await takenUnderRefusal(ledger, config);
    if (refusal !== undefined) throw refusal;
    reached = await openService(config, { logger, publish: options.publish === true });
    // the old generation grows slowly only while a large export is read (intake/heap-growth.ts)
    betweenLargeReads();
    built = new Pipeline(config, logger, pipelineParts(reached), options);
    options.onStart?.(reached.service);
    await built.start();
    return built;
  } catch (err) {
    // start() may have started senders: stop them too, or their loops keep the process alive and crash on the closed ledger.
    if (built) await built.close();
    else {
      await reached?.close();
      await ledger.close();
      await companies.leave();
    }
    throw err;
  }

  function pipelineParts({ service, client }: OpenedService): PipelineParts {
    const storage = new StorageWatch({
      probe: () => ledger.probeWrite(),
      logger,
      dirs: [config.paths.state, config.paths.outbox],
    });
    const intake = new IntakeQueue(
      logger,
      (file) => built?.take(file) ?? Promise.resolve(undefined),
      options.intakeConcurrency ?? INTAKES,
    );
    storage.onResume(() => {
      intake.resume();
      companies.wake();
    });
    // The closures read the configuration in force (it changes on SIGHUP).
    const archived = new ArchiveWatch({
      ledger,
      logger,
      watchMs: () => current().watch.archiveWatchMs,
      intervalMs: config.watch.stableMs > 0 ? config.watch.stableMs : 1_000,
      onFlagged: (id) => reports.touch(id),
      companies,
    });
    const reports = new ReportScheduler({
      ledger,
      logger,
      storage,
      onArchived: (id, archivedPath) =>
        void archived
          .add(id, archivedPath)
          .catch((err: unknown) =>
            logger.warn({ err, file: archivedPath }, 'could not watch an archived original'),
          ),
      outboxDir: (company, kind) => outboxDir(current(), company, kind),
      // a file given to `edoc-bridge submit` stays where the operator keeps it
      archives: (file) => inInboxFolder(current(), file),
      companies,
      scrub: (text) => secretScrubberOf(current()).scrub(text),
    });
    return {
      ledger,
      service,
      client,
      health: healthOf(client),
      companies,
      storage,
      intake,
      reader: IntakeReader.available()
        ? new IntakeReader(logger, { stuckAfterMs: () => current().read.stuckAfter })
        : undefined,
      sets: new PartSets(logger, () => current().paths.state),
      archived,
      master: new MasterData({ ledger, logger, config: current }),
      reports,
    };
  }
}
