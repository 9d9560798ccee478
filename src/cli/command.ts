import type { Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import type { AppLogger, LineSink } from '../log/logger.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** One letter: `-k`. */
  short?: string;
  /** May be given more than once; the value is then a string[]. */
  multiple?: boolean;
  default?: string | boolean;
  /** Placeholder shown in help: `--kind KIND`. */
  valueName?: string;
  description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export type OptionValue = string | boolean | string[] | undefined;

export interface ParsedArgs {
  readonly command: string;
  /** Every option by its long name, the global ones (`config`, `verbose`) included. */
  readonly values: Readonly<Record<string, OptionValue>>;
  readonly positionals: readonly string[];
  /** A string option, or undefined when absent. */
  string(name: string): string | undefined;
  /** A string option that must be present; a usage error (exit 2) otherwise. */
  requireString(name: string): string;
  /** A repeatable string option; [] when absent. */
  strings(name: string): string[];
  /** A boolean option; false when absent. */
  flag(name: string): boolean;
  /** The positional at `index`; a usage error naming `name` when missing. */
  positional(index: number, name: string): string;
}

export type CliSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export interface CliIO {
  /** Writes one line (a newline is added) to stdout. */
  out(text: string): void;
  /** Writes one line (a newline is added) to stderr. */
  err(text: string): void;
  /**
   * Draws a status line (a progress bar) on stderr when it is a terminal, redrawn in place, with the lines
   * printed meanwhile above it; `final` leaves it on screen. Does nothing off a terminal.
   */
  progress(text: string, final?: boolean): void;
  readonly stdout: LineSink;
  readonly stderr: LineSink;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** --verbose: errors print their stack. */
  readonly verbose: boolean;
  /** The --config file as given (default config/edoc-bridge.yaml), relative to cwd. */
  readonly configFile: string;
  /**
   * The loaded, frozen configuration (loaded once). For a command with
   * `needsConfig: true`, main() has loaded it before run(), so a bad file already
   * ended the command with exit 2 and the key path.
   */
  config(): Promise<Readonly<Config>>;
  /**
   * The process logger (created once from config.log: file and level; console
   * lines when stdout is a terminal; every company's API key registered as a
   * secret). main() closes it after run() returns.
   */
  logger(): Promise<AppLogger>;
  /** Listens for a signal until run() returns; main() removes the listener then. Returns an unsubscribe. */
  onSignal(signal: CliSignal, handler: () => void): () => void;
}

export interface Command {
  name: string;
  /** One line, shown in `edoc-bridge --help`. */
  summary: string;
  /** The synopsis, e.g. `edoc-bridge submit FILE --kind KIND [--dry-run]`. */
  usage: string;
  /** Paragraphs shown under the usage in `<cmd> --help`. */
  description?: string;
  examples: string[];
  /** The command's own options; --config, --verbose and --help are added by main(). */
  options: OptionSpecs;
  /** How many positionals the command takes at most. @defaultValue 0 */
  maxPositionals?: number;
  /** main() loads the configuration before run(). */
  needsConfig?: boolean;
  /**
   * The command calls the service, so the configuration is loaded with the companies' API keys resolved
   * (an unset `${VAR}` or unreadable apiKeyFile is then an error). Commands that never call the service
   * say false and get every `apiKey` as ''. @defaultValue true
   */
  needsSecrets?: boolean | ((args: ParsedArgs) => boolean);
  run(args: ParsedArgs, io: CliIO): Promise<number>;
}

/** The error to throw for a bad command line: main() prints it in one line and exits 2. */
export function usageError(message: string): EdocError {
  return new EdocError('EDOC_CLI_USAGE', message);
}
