/**
 * After a command changed the ledger beside a running daemon (`retry`, `resolve`): the daemon holding
 * the state folder is told with SIGHUP, so it looks at the ledger at once instead of at its next look
 * (within a minute). Returns the line for the operator, in the caller's words.
 */
import type { Config } from '../config/schema.js';
import type { lockHolder } from '../ledger/lock.js';
import { holderCommand } from './commands/status.js';

export interface TellWords {
  /** With ledger.url: no process lock; whichever daemon runs the company finds the change itself. */
  shared: string;
  told(pid: number): string;
  unsignalled(pid: number): string;
  notADaemon(command: string | undefined, pid: number): string;
  none: string;
}

export function tellDaemon(
  config: Readonly<Config>,
  holder: ReturnType<typeof lockHolder>,
  words: TellWords,
): string {
  if (config.ledger.url !== undefined) return words.shared;
  if (!holder) return words.none;
  const command = holderCommand(holder.pid);
  if (command !== undefined && command !== 'run') return words.notADaemon(command, holder.pid);
  try {
    process.kill(holder.pid, 'SIGHUP');
    return words.told(holder.pid);
  } catch {
    return words.unsignalled(holder.pid);
  }
}
