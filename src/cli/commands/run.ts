import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'the daemon: watch the inbox, submit, write the outbox, pull received documents',
  usage: 'edoc-bridge run [--config FILE]',
  description: [
    'Runs until SIGINT or SIGTERM, then stops watching, drains or parks the queue,',
    'flushes the outbox and closes the ledger. SIGHUP reloads the configuration and',
    'reopens the log file. With service.baseUrl: embedded, documents go to the bundled',
    'emulator, not the tax authority.',
  ].join('\n'),
  examples: [
    'edoc-bridge run',
    'edoc-bridge run --config /etc/edoc-bridge/edoc-bridge.yaml',
  ],
  options: {},
  needsConfig: true,
  run: notAvailable('run'),
};
