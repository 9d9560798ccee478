import type { Command } from '../command.js';
import { notAvailable } from './not-available.js';

export const emulatorCommand: Command = {
  name: 'emulator',
  summary: 'run the local service emulator on its own',
  usage: 'edoc-bridge emulator [--port N] [--host HOST] [--seed FILE] [--state FILE] [--config FILE]',
  description: [
    'Serves the whole spec (every endpoint and alias) over HTTP until SIGINT/SIGTERM.',
    'Defaults come from the emulator section of the configuration when the file exists.',
    'POST /_emulator/faults replaces the fault settings.',
  ].join('\n'),
  examples: [
    'edoc-bridge emulator --port 8080',
    'edoc-bridge emulator --seed config/emulator-seed.json --state state/emulator.json',
  ],
  options: {
    port: { type: 'string', short: 'p', valueName: 'N', description: 'port to listen on; 0 picks a free one' },
    host: { type: 'string', valueName: 'HOST', description: 'address to listen on (default 127.0.0.1)' },
    seed: { type: 'string', valueName: 'FILE', description: 'seed file (companies, ranges, faults)' },
    state: { type: 'string', valueName: 'FILE', description: 'persist the emulator state in this file' },
  },
  run: notAvailable('emulator'),
};
