/**
 * The daemon in the test process (startDaemon on a project's configuration), for alert tests that
 * pin the alerts' clock or read the ledger's counts often: the real pipeline, senders, watcher and
 * received puller against the emulator over HTTP; closed after the test by its resources. A real
 * webhook receiver on 127.0.0.1 takes the alerts.
 */
import { configSecrets } from '../../src/config/secrets.js';
import { loadConfig } from '../../src/config/load.js';
import type { Daemon } from '../../src/daemon/daemon.js';
import { startDaemon, type DaemonOptions } from '../../src/root/start-daemon.js';
import { createLogger, type AppLogger } from '../../src/log/logger.js';
import type { TestResources } from './daemon-fixture.js';
import type { Project } from './daemon-harness.js';
import { WebhookReceiver } from './webhook-receiver.js';

export interface InProcessDaemon {
  daemon: Daemon;
  logger: AppLogger;
  /** Loads the project's configuration again and hands it to the daemon (SIGHUP). */
  reload(): Promise<void>;
}

export async function startInProcess(
  resources: TestResources,
  project: Project,
  options: DaemonOptions = {},
): Promise<InProcessDaemon> {
  const config = await loadConfig(project.configFile, {}, { cwd: project.dir });
  const logger = createLogger({
    file: project.logFile,
    level: 'debug',
    secrets: configSecrets(config),
  });
  const holder: { daemon?: Daemon } = {};
  resources.defer(async () => {
    await holder.daemon?.close();
    await logger.close();
  });
  const started = await startDaemon(config, logger, { drainTimeoutMs: 1_000, ...options });
  holder.daemon = started;
  return {
    daemon: started,
    logger,
    async reload() {
      await started.reload(await loadConfig(project.configFile, {}, { cwd: project.dir }));
    },
  };
}

export async function webhookReceiver(
  resources: TestResources,
  port = 0,
): Promise<WebhookReceiver> {
  const receiver = await WebhookReceiver.start(port);
  resources.defer(() => receiver.close());
  return receiver;
}

/** No message the receiver took holds any of these values (API keys, the webhook's token). */
export function leakedSecrets(receiver: WebhookReceiver, secrets: readonly string[]): string[] {
  return secrets.filter((s) =>
    receiver.messages.some((m) => m.text.includes(s) || JSON.stringify(m.headers).includes(s)),
  );
}
