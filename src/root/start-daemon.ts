/**
 * The composition root of the daemon (`edoc-bridge run`): the pipeline opened and started as `submit`
 * opens it (open-pipeline.ts), publishing the embedded emulator's address, then what the daemon adds —
 * the alerts and range watch, the received-documents puller, the operator listener — handed to the
 * Daemon, which starts them in order (daemon/daemon.ts `start`). A failure on the way closes everything
 * opened so far, in the daemon's closing order.
 */
import type { Config } from '../config/schema.js';
import { redactConfig } from '../config/redact.js';
import { Alerting, type AlertingOptions } from '../daemon/alerting.js';
import { Daemon } from '../daemon/daemon.js';
import type { AppLogger } from '../log/logger.js';
import { ReceivedPuller } from '../received/puller.js';
import { openOperator } from './open-operator.js';
import { openPipeline } from './open-pipeline.js';

export interface DaemonOptions {
  /** How long close() lets in-flight requests finish before aborting them. @defaultValue COMPANY_SENDER_DEFAULTS.drainTimeoutMs (10000) */
  drainTimeoutMs?: number;
  /** Input files read at once (a huge file never holds the others back). @defaultValue INTAKES (32) */
  intakeConcurrency?: number;
  /** Pinned "today" for validation (tests). */
  today?: string;
  /** The idle service probe's own timeout (tests). @defaultValue SERVICE_PROBE_DEFAULTS.timeoutMs (5000) */
  probeTimeoutMs?: number;
  /** The alerts' clock (the Colombian day's end) and how often they read the ledger's counts (tests). */
  alerts?: AlertingOptions;
}

/** Opens the pipeline (ledger lock, service or embedded emulator, recovery, senders), then starts the daemon's own parts. */
export async function startDaemon(
  config: Readonly<Config>,
  logger: AppLogger,
  options: DaemonOptions = {},
): Promise<Daemon> {
  const { alerts, probeTimeoutMs, ...pipelineOptions } = options;
  const pipeline = await openPipeline(config, logger, {
    ...pipelineOptions,
    publish: true,
    onStart: (service) => {
      logger.info({ config: redactConfig(config) }, 'effective configuration');
      if (service.embedded) {
        logger.warn(
          { baseUrl: service.baseUrl },
          'SERVICE IS THE EMBEDDED EMULATOR: documents go to the local emulator, NOT to the tax authority',
        );
      } else {
        logger.info({ baseUrl: service.baseUrl }, 'submitting to the service');
      }
    },
  });
  let daemon: Daemon;
  try {
    const { ledger, client } = pipeline;
    const alerting = new Alerting(pipeline, config, logger, alerts);
    daemon = new Daemon(config, logger, {
      pipeline,
      alerting,
      puller: new ReceivedPuller({ ledger, client, config, logger }),
      operator: (view) =>
        openOperator(
          {
            config: view.config,
            pipeline,
            watcherProblem: view.watcherProblem,
            ranges: () => alerting.rangeWatch.snapshot(),
            alerts: alerting.alerts,
          },
          logger,
          probeTimeoutMs,
        ),
    });
  } catch (err) {
    await pipeline.close();
    throw err;
  }
  try {
    await daemon.start();
    return daemon;
  } catch (err) {
    // the senders run already (e.g. the inbox could not be created): stop them too, or their
    // loops keep the process alive and then crash on the closed ledger.
    await daemon.close();
    throw err;
  }
}
