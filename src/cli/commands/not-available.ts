import type { CliIO, ParsedArgs } from '../command.js';
import { EXIT_USAGE } from '../exit-codes.js';

/** The run() of a command whose implementation is not part of this build. */
export function notAvailable(name: string): (args: ParsedArgs, io: CliIO) => Promise<number> {
  return async (_args, io) => {
    io.err(`edoc-bridge ${name}: not available in this build`);
    return EXIT_USAGE;
  };
}
