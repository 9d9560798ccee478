import { loadConfig } from '../../config/load.js';
import { Daemon } from '../../daemon/daemon.js';
import type { Command } from '../command.js';
import { EXIT_OK } from '../exit-codes.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'the daemon: watch the inbox, submit, write the outbox, pull received documents',
  usage: 'edoc-bridge run [--config FILE]',
  description: [
    'Runs until SIGINT or SIGTERM, then stops watching, drains or parks the queue,',
    'flushes the outbox and closes the ledger. SIGHUP reloads the configuration and',
    'reopens the log file (a broken new configuration is refused and the old one stays).',
    'With service.baseUrl: embedded, documents go to the bundled emulator, not the tax authority.',
  ].join('\n'),
  examples: [
    'edoc-bridge run',
    'edoc-bridge run --config /etc/edoc-bridge/edoc-bridge.yaml',
  ],
  options: {},
  needsConfig: true,
  async run(_args, io) {
    const config = await io.config();
    const logger = await io.logger();
    const daemon = await Daemon.start(config, logger);
    io.out(`edoc-bridge: running (log: ${config.log.file}); stop with Ctrl-C`);
    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => (): void => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'stopping');
        daemon.close().then(resolve, resolve);
      };
      io.onSignal('SIGINT', stop('SIGINT'));
      io.onSignal('SIGTERM', stop('SIGTERM'));
      io.onSignal('SIGHUP', () => {
        logger.reopen();
        loadConfig(io.configFile, io.env, { cwd: io.cwd }).then(
          (next) => {
            for (const c of next.companies) logger.registerSecret(c.apiKey);
            return daemon.reload(next);
          },
          (err: unknown) => {
            logger.error({ err, code: (err as { code?: string }).code }, 'new configuration refused; the old one stays in force');
          },
        ).catch((err: unknown) => logger.error({ err }, 'reload failed'));
      });
    });
    return EXIT_OK;
  },
};
