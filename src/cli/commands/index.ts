import type { Command } from '../command.js';
import { commissionCommand } from './commission.js';
import { emulatorCommand } from './emulator.js';
import { ledgerCommand } from './ledger.js';
import { rangesCommand } from './ranges.js';
import { receivedCommand } from './received.js';
import { resendCommand } from './resend.js';
import { resolveCommand } from './resolve.js';
import { retryCommand } from './retry.js';
import { runCommand } from './run.js';
import { showCommand } from './show.js';
import { statusCommand } from './status.js';
import { submitCommand } from './submit.js';
import { validateCommand } from './validate.js';

/** Every command, in the order `edoc-bridge --help` lists them. */
export const COMMANDS: readonly Command[] = [
  runCommand,
  submitCommand,
  validateCommand,
  statusCommand,
  showCommand,
  retryCommand,
  resolveCommand,
  resendCommand,
  rangesCommand,
  commissionCommand,
  receivedCommand,
  ledgerCommand,
  emulatorCommand,
];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((command) => command.name === name);
}
