import { loadConfig } from '../../config/load.js';
import { checkWritableFolders } from '../../daemon/writable-folders.js';
import { checkSeparateFolders } from '../../daemon/separate-folders.js';
import { configSecrets } from '../../config/secrets.js';
import type { Config } from '../../config/schema.js';
import type { Daemon } from '../../daemon/daemon.js';
import { startDaemon } from '../../root/start-daemon.js';
import { isEdocError } from '../../errors.js';
import { isStorageFull } from '../../storage/storage-full.js';
import type { AppLogger } from '../../log/logger.js';
import type { Command } from '../command.js';
import { takeEarlyHangups } from '../early-hangup.js';
import { EXIT_OK } from '../exit-codes.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'the daemon: watch the inbox, submit, write the outbox, pull received documents',
  usage: 'edoc-bridge run [--config FILE]',
  description: [
    'Runs until SIGINT or SIGTERM, then stops watching, drains or parks the queue,',
    'flushes the outbox and closes the ledger. SIGHUP reloads the configuration and',
    'reopens the log file (a broken new configuration is refused and the old one stays).',
    'service.baseUrl, service.paths, service.timeoutMs, paths.state and log.file apply only at the next start.',
    'With service.baseUrl: embedded, documents go to the bundled emulator, not the tax authority.',
  ].join('\n'),
  examples: ['edoc-bridge run', 'edoc-bridge run --config /etc/edoc-bridge/edoc-bridge.yaml'],
  options: {},
  needsConfig: true,
  async run(_args, io) {
    const config = await io.config();
    const logger = await io.logger();
    // Set once started; the signal handlers below exist before it does.
    const started: { daemon?: Daemon } = {};
    let stopRequested: string | undefined;
    let reloadRequested = false;
    let reloading: Promise<void> = Promise.resolve();
    let stopped: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      stopped = resolve;
    });

    const stop = (signal: string) => (): void => {
      if (stopRequested !== undefined) return;
      stopRequested = signal;
      logger.info({ signal }, 'stopping');
      // During start the daemon is not there yet: it is closed as soon as startDaemon returns.
      const { daemon } = started;
      if (daemon) void reloading.then(() => daemon.close()).then(stopped, stopped);
    };
    const reload = (): void => {
      logger.reopen();
      if (stopRequested !== undefined) return;
      const { daemon } = started;
      if (!daemon) {
        // Handled once started; until then a SIGHUP must not end the process (its default action).
        reloadRequested = true;
        return;
      }
      // One reload at a time: a second SIGHUP waits for the first instead of racing it.
      reloading = reloading.then(() => reloadOnce(io, logger, daemon));
    };
    // Listening before the daemon starts: it takes the state folder's lock early, and `retry` signals the holder.
    io.onSignal('SIGINT', stop('SIGINT'));
    io.onSignal('SIGTERM', stop('SIGTERM'));
    io.onSignal('SIGHUP', reload);
    // a SIGHUP while the program loaded (bin/edoc-bridge.js held it): reloaded once started
    if (takeEarlyHangups() > 0) reload();

    // a folder it cannot write is a configuration error now (exit 2), not a failure at the first report or at stop
    await checkWritableFolders(config, io.configFile);
    await checkSeparateFolders(config, io.configFile);
    started.daemon = await startWhenWritable(config, logger, () => stopRequested !== undefined);
    if (started.daemon === undefined || stopRequested !== undefined) {
      await started.daemon?.close();
      return EXIT_OK;
    }
    io.out(`edoc-bridge: running (log: ${config.log.file}); stop with Ctrl-C`);
    if (reloadRequested) reload();
    await done;
    return EXIT_OK;
  },
};

/**
 * Starts the daemon; on a full disk (the ledger cannot even be opened or recovered) it waits with one
 * line and tries again (1 s … 30 s) rather than exit, which under systemd would be a restart loop.
 * Undefined when a stop was requested meanwhile.
 */
async function startWhenWritable(
  config: Readonly<Config>,
  logger: AppLogger,
  stopped: () => boolean,
): Promise<Daemon | undefined> {
  let delayMs = 1_000;
  let waiting = false;
  for (;;) {
    try {
      const daemon = await startDaemon(config, logger);
      if (waiting)
        logger.info({ code: 'EDOC_STORAGE_FULL' }, 'storage writable again: the daemon starts');
      return daemon;
    } catch (err) {
      if (!isStorageFull(err)) throw err;
      if (!waiting) {
        logger.error(
          { err, code: 'EDOC_STORAGE_FULL', state: config.paths.state },
          'the disk is full: the daemon cannot start yet; it tries again by itself until there is space',
        );
      }
      waiting = true;
    }
    for (const until = Date.now() + delayMs; Date.now() < until;) {
      if (stopped()) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    delayMs = Math.min(delayMs * 2, 30_000);
  }
}

/** Loads the file again and hands it to the daemon; a file that does not load leaves everything as it was. */
async function reloadOnce(
  io: { configFile: string; env: NodeJS.ProcessEnv; cwd: string },
  logger: AppLogger,
  daemon: Daemon,
): Promise<void> {
  let next: Readonly<Config>;
  try {
    next = await loadConfig(io.configFile, io.env, { cwd: io.cwd });
    const refusal = await daemon.reloadRefusal(next);
    if (refusal !== undefined) throw refusal;
    await checkSeparateFolders(next, io.configFile);
    await daemon.makeInboxFolders(next);
  } catch (err) {
    logger.error(
      { err, code: (err as { code?: string }).code, file: io.configFile },
      'new configuration refused; the old one stays in force',
    );
    return;
  }
  for (const secret of configSecrets(next)) logger.registerSecret(secret);
  try {
    await daemon.reload(next);
    logger.level = next.log.level;
  } catch (err) {
    // refused by the check made again with the changed companies' takes held, before anything changed
    const refused = isEdocError(err, 'EDOC_CONFIG_INVALID');
    logger.error(
      { err, code: (err as { code?: string }).code },
      refused ? 'new configuration refused; the old one stays in force' : 'reload failed',
    );
  }
}
