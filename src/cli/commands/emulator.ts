import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startEmulator } from '../../emulator/server.js';
import { usageError, type CliIO, type Command, type ParsedArgs } from '../command.js';
import { EXIT_OK } from '../exit-codes.js';

const DEFAULT_SEED = 'config/emulator-seed.json';

interface EmulatorSettings {
  host: string;
  port: number;
  seed: string;
  state?: string;
}

function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535)
    throw usageError(`--port must be a number from 0 to 65535, got '${text}'`);
  return Number(text);
}

/** Flags first, then the emulator section of the configuration when the file exists, then the defaults. */
async function settings(args: ParsedArgs, io: CliIO): Promise<EmulatorSettings> {
  const portText = args.string('port');
  let seed = args.string('seed');
  let state = args.string('state');
  let port = portText === undefined ? undefined : parsePort(portText);
  if ((seed === undefined || port === undefined) && existsSync(resolve(io.cwd, io.configFile))) {
    const config = await io.config();
    seed ??= config.emulator.seed;
    state ??= config.emulator.state;
    port ??= config.emulator.port;
  }
  return {
    host: args.string('host') ?? '127.0.0.1',
    port: port ?? 0,
    seed: resolve(io.cwd, seed ?? DEFAULT_SEED),
    state: state === undefined ? undefined : resolve(io.cwd, state),
  };
}

export const emulatorCommand: Command = {
  name: 'emulator',
  summary: 'run the local service emulator on its own',
  usage:
    'edoc-bridge emulator [--port N] [--host HOST] [--seed FILE] [--state FILE] [--config FILE]',
  description: [
    'Serves the whole spec (every endpoint and alias) over HTTP until SIGINT/SIGTERM.',
    'Defaults come from the emulator section of the configuration when the file exists.',
    'POST /_emulator/faults replaces the fault settings; see docs/emulator.md.',
  ].join('\n'),
  examples: [
    'edoc-bridge emulator --port 8080',
    'edoc-bridge emulator --port 0 --seed config/emulator-seed.json --state state/emulator.json',
  ],
  options: {
    port: {
      type: 'string',
      short: 'p',
      valueName: 'N',
      description: 'port to listen on; 0 picks a free one',
    },
    host: {
      type: 'string',
      valueName: 'HOST',
      description: 'address to listen on (default 127.0.0.1)',
    },
    seed: {
      type: 'string',
      valueName: 'FILE',
      description: 'seed file (companies, ranges, faults)',
    },
    state: {
      type: 'string',
      valueName: 'FILE',
      description: 'persist the emulator state in this file',
    },
  },
  async run(args, io) {
    const options = await settings(args, io);
    const emulator = await startEmulator({
      host: options.host,
      port: options.port,
      seed: options.seed,
      stateFile: options.state,
    });
    io.out(`edoc-bridge emulator listening on ${emulator.url}`);
    io.out('This is the local emulator: nothing is sent to the tax authority.');
    await new Promise<void>((done) => {
      io.onSignal('SIGINT', done);
      io.onSignal('SIGTERM', done);
    });
    await emulator.close();
    io.out('edoc-bridge emulator stopped');
    return EXIT_OK;
  },
};
