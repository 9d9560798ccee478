import type { Command } from '../command.js';

/**
 * Every command, in the order `edoc-bridge --help` lists them, each loaded only when it is asked for: a
 * command's module pulls in what it runs (the daemon, the emulator, the mapping engine…), and a one-shot
 * `status` or `retry` need not compile the rest of the program first (about 0.3 s of CPU per start).
 */
const LOADERS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => (await import('./run.js')).runCommand,
  submit: async () => (await import('./submit.js')).submitCommand,
  validate: async () => (await import('./validate.js')).validateCommand,
  status: async () => (await import('./status.js')).statusCommand,
  show: async () => (await import('./show.js')).showCommand,
  retry: async () => (await import('./retry.js')).retryCommand,
  resolve: async () => (await import('./resolve.js')).resolveCommand,
  resend: async () => (await import('./resend.js')).resendCommand,
  ranges: async () => (await import('./ranges.js')).rangesCommand,
  commission: async () => (await import('./commission.js')).commissionCommand,
  received: async () => (await import('./received.js')).receivedCommand,
  ledger: async () => (await import('./ledger.js')).ledgerCommand,
  emulator: async () => (await import('./emulator.js')).emulatorCommand,
};

/** The names of every command, in help order. */
export const COMMAND_NAMES: readonly string[] = Object.keys(LOADERS);

/** The command called `name`, loaded; undefined for a name that is no command. */
export async function findCommand(name: string): Promise<Command | undefined> {
  return Object.hasOwn(LOADERS, name) ? LOADERS[name]!() : undefined;
}

/** Every command, loaded (the general help lists them with their summaries). */
export async function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_NAMES.map((name) => LOADERS[name]!()));
}
