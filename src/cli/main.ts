import { readFileSync } from 'node:fs';
import { DEFAULT_CONFIG_FILE } from '../config/load.js';
import { bestEffortSecrets, secretScrubberOf } from '../config/secrets.js';
import { SecretScrubber } from '../log/secrets.js';
import { closest } from '../config/suggest.js';
import type { Config } from '../config/schema.js';
import { EdocError, isEdocError } from '../errors.js';
import { isStorageFull, storageFullError } from '../storage/storage-full.js';
import { redactDeep } from '../log/redact.js';
import type { Command } from './command.js';
import { COMMAND_NAMES, findCommand, loadCommands } from './commands/index.js';
import { EXIT_NOT_ALL_SUCCEEDED, EXIT_OK, EXIT_SERVICE, EXIT_USAGE } from './exit-codes.js';
import { commandHelp, generalHelp } from './help.js';
import { createCliIO } from './io.js';
import type { CliEnvironment } from './io.js';
import { splitCommand } from './command-name.js';
import { parseCommandArgs, wantsHelp } from './parse.js';
import { terminalText } from '../log/terminal-text.js';

function version(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

const USAGE_CODES = new Set([
  'EDOC_CLI_USAGE',
  'EDOC_MAPPING_INVALID',
  'EDOC_EMULATOR_SEED_INVALID',
  'EDOC_EMULATOR_STATE_INVALID',
  'EDOC_LEDGER_LOCKED',
  'EDOC_HTTP_LISTEN',
  'EDOC_LEDGER_COPY_REFUSED',
  'EDOC_LEDGER_COPY_SCHEMA',
  'EDOC_LEDGER_COPY_VALUE',
  'EDOC_CLUSTER_NODE_IN_USE',
]);

/** The exit code an error that escaped run() stands for. */
export function exitCodeFor(err: unknown): number {
  if (isEdocError(err)) {
    if (err.code.startsWith('EDOC_CONFIG_') || USAGE_CODES.has(err.code)) return EXIT_USAGE;
    if (err.code === 'EDOC_SERVICE_UNREACHABLE' || err.code === 'EDOC_SERVICE_UNAUTHORIZED')
      return EXIT_SERVICE;
    // the PostgreSQL ledger: down or cut off may pass (3, systemd restarts), refused credentials will not (2, it does not)
    if (err.code === 'EDOC_LEDGER_UNREACHABLE' || err.code === 'EDOC_LEDGER_CONNECTION_LOST')
      return EXIT_SERVICE;
    if (err.code === 'EDOC_LEDGER_REFUSED') return EXIT_USAGE;
  }
  return EXIT_NOT_ALL_SUCCEEDED;
}

function describeError(err: unknown, verbose: boolean): string {
  if (!(err instanceof Error)) return String(err);
  const code = isEdocError(err) ? ` [${err.code}]` : '';
  if (!verbose) return `${err.message.split('\n')[0]}${code}`;
  const lines = [
    `${err.message}${code}`,
    ...(err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)),
  ];
  if (isEdocError(err) && Object.keys(err.context).length > 0)
    lines.push(`context: ${JSON.stringify(redactDeep(err.context))}`);
  let cause = err.cause;
  while (cause instanceof Error) {
    lines.push(`caused by: ${cause.stack ?? cause.message}`);
    cause = cause.cause;
  }
  return lines.join('\n');
}

/**
 * The error line without the configuration's secrets: an error may quote a configured value (a
 * mapping entry) or input that holds a key. Without a loaded configuration there is nothing to scrub.
 */
async function scrubbed(
  line: string,
  io: ReturnType<typeof createCliIO> | undefined,
  environment: CliEnvironment,
): Promise<string> {
  if (io === undefined) return line;
  // read-only commands load the configuration without its keys, and a configuration that failed to
  // load (a mapping error quoting a key) gives none: the file's own secrets are read as far as they can be
  const fromFile = new SecretScrubber(
    bestEffortSecrets(io.configFile, environment.env, environment.cwd),
  );
  try {
    return fromFile.scrub(secretScrubberOf(await io.config()).scrub(line));
  } catch {
    return fromFile.scrub(line);
  }
}

/**
 * Commands that work with ledger.url set: they use no ledger, or the PostgreSQL one (openLedger). Every
 * command is in it now; the check stays so that a command added later must say it runs on PostgreSQL
 * before it may quietly keep documents in the SQLite state folder while the configuration names a database.
 */
const POSTGRES_READY = new Set([
  'ledger',
  'validate',
  'emulator',
  'commission',
  'run',
  'status',
  'retry',
  'resolve',
  'resend',
  'received',
  'ranges',
  'show',
]);
// Not `submit`: with ledger.url a process that sends is a node of the cluster, and each company is sent by
// the node holding its lease. A foreground submit would need that company's lease beside the running nodes
// (docs/cluster.md, "What is not done yet"): drop the file into the company's inbox folder instead.

/** A command not (yet) on the PostgreSQL ledger refuses to start while ledger.url is set (issue 13). */
function refuseUnwiredLedger(command: Command, config: Readonly<Config>): void {
  if (config.ledger.url === undefined || POSTGRES_READY.has(command.name)) return;
  throw new EdocError(
    'EDOC_CONFIG_INVALID',
    `ledger.url is set, and edoc-bridge ${command.name} does not run on the PostgreSQL ledger of a cluster (see docs/cluster.md): ` +
      (command.name === 'submit'
        ? "drop the file into the company's inbox folder, where the node running the company takes it"
        : 'remove ledger.url to use the SQLite ledger in paths.state'),
    { path: 'ledger.url' },
  );
}

async function runCommand(
  command: Command,
  argv: readonly string[],
  environment: CliEnvironment,
): Promise<number> {
  const verbose = argv.includes('--verbose');
  const prefix = `edoc-bridge ${command.name}`;
  let io: ReturnType<typeof createCliIO> | undefined;
  try {
    const args = parseCommandArgs(command, argv);
    const secrets =
      typeof command.needsSecrets === 'function'
        ? command.needsSecrets(args)
        : (command.needsSecrets ?? true);
    io = createCliIO(
      environment,
      args.string('config') ?? DEFAULT_CONFIG_FILE,
      args.flag('verbose'),
      secrets,
    );
    if (command.needsConfig) refuseUnwiredLedger(command, await io.config());
    return await command.run(args, io);
  } catch (caught) {
    // a full disk, wherever it struck, is one clear line with its own code (EDOC_STORAGE_FULL), not a database message
    const err = isStorageFull(caught)
      ? storageFullError(caught, 'the ledger or the outbox')
      : caught;
    const line =
      isEdocError(err, 'EDOC_CLI_USAGE') && !verbose
        ? `${err.message} (see ${prefix} --help)`
        : describeError(err, verbose);
    environment.stderr.write(
      `${prefix}: ${terminalText(command.needsConfig ? await scrubbed(line, io, environment) : line)}\n`,
    );
    return exitCodeFor(err);
  } finally {
    await io?.dispose();
  }
}

/**
 * The command line. Returns the exit code; the bin sets process.exitCode from
 * it, so nothing here calls process.exit.
 */
export async function main(
  argv: readonly string[],
  overrides: Partial<CliEnvironment> = {},
): Promise<number> {
  const environment: CliEnvironment = {
    stdout: overrides.stdout ?? process.stdout,
    stderr: overrides.stderr ?? process.stderr,
    env: overrides.env ?? process.env,
    cwd: overrides.cwd ?? process.cwd(),
  };
  const write = (sink: CliEnvironment['stdout'], text: string): void =>
    void sink.write(`${text}\n`);
  const { name, rest } = splitCommand(argv);

  if (name === undefined || name === 'help') {
    const topic = name === 'help' ? splitCommand(rest).name : undefined;
    const target = topic === undefined ? undefined : await findCommand(topic);
    if (target) {
      write(environment.stdout, commandHelp(target));
      return EXIT_OK;
    }
    if (rest.includes('--version')) {
      write(environment.stdout, version());
      return EXIT_OK;
    }
    const asked = name === 'help' || wantsHelp(rest);
    write(
      asked ? environment.stdout : environment.stderr,
      generalHelp(await loadCommands(), version()),
    );
    return asked && topic === undefined ? EXIT_OK : EXIT_USAGE;
  }

  const command = await findCommand(name);
  if (!command) {
    const suggestion = closest(name, COMMAND_NAMES);
    write(
      environment.stderr,
      `edoc-bridge: unknown command "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; run edoc-bridge --help for the list`,
    );
    return EXIT_USAGE;
  }
  if (wantsHelp(rest)) {
    write(environment.stdout, commandHelp(command));
    return EXIT_OK;
  }
  return runCommand(command, rest, environment);
}
