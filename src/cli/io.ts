import { loadConfig } from '../config/load.js';
import { bestEffortSecrets, configSecrets } from '../config/secrets.js';
import { EdocError } from '../errors.js';
import type { Config } from '../config/schema.js';
import { createLogger } from '../log/logger.js';
import { SecretScrubber } from '../log/secrets.js';
import { terminalText } from '../log/terminal-text.js';
import type { AppLogger, LineSink } from '../log/logger.js';
import type { CliIO, CliSignal } from './command.js';
import { StatusLine } from './status-line.js';

export interface CliEnvironment {
  stdout: LineSink;
  stderr: LineSink;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface OwnedCliIO extends CliIO {
  /** Closes the logger and removes signal listeners; safe to call twice. */
  dispose(): Promise<void>;
}

interface GuardedSink extends LineSink {
  release(): void;
}

/**
 * A reader that went away (`edoc-bridge validate FILE | head -1`) makes the next
 * write fail with EPIPE, emitted as an 'error' event that would crash the process
 * with a stack trace. Output nobody reads is dropped instead; the command ends
 * as it would have.
 */
function guardSink(sink: LineSink): GuardedSink {
  let closed = false;
  const emitter = sink as Partial<Pick<NodeJS.WritableStream, 'on' | 'off'>> & {
    destroyed?: boolean;
  };
  // EPIPE or any other failure of the stream itself: there is nowhere left to say it.
  const onError = (): void => {
    closed = true;
  };
  const listens = typeof emitter.on === 'function' && typeof emitter.off === 'function';
  if (listens) emitter.on?.('error', onError);
  return {
    write(text) {
      if (closed || emitter.destroyed === true) return false;
      try {
        return sink.write(text);
      } catch (err) {
        // a synchronous EPIPE (a file descriptor written with writeSync)
        closed = true;
        if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
        return false;
      }
    },
    release() {
      if (listens) emitter.off?.('error', onError);
    },
  };
}

/** `secrets: false` loads the configuration without the companies' API keys (a command that never calls the service). */
export function createCliIO(
  environment: CliEnvironment,
  configFile: string,
  verbose: boolean,
  secrets = true,
): OwnedCliIO {
  const { env, cwd } = environment;
  const stdout = guardSink(environment.stdout);
  const stderr = guardSink(environment.stderr);
  const isTerminal = (sink: LineSink): boolean => (sink as { isTTY?: boolean }).isTTY === true;
  // The progress bar lives on stderr; every line printed while it is drawn goes above it.
  const status = isTerminal(environment.stderr) ? new StatusLine(stderr) : undefined;
  const print = (sink: LineSink, text: string): void => {
    if (status) status.above(sink, text);
    else sink.write(text);
  };
  // a file or customer name, or a service message, may quote a key: the configuration file's secrets
  // (read as far as they can be: read-only commands load it without its keys) never reach the output
  let outputSecrets: SecretScrubber | undefined;
  const shown = (text: string): string => {
    outputSecrets ??= new SecretScrubber(bestEffortSecrets(configFile, env, cwd));
    return terminalText(outputSecrets.scrub(text));
  };
  let config: Promise<Readonly<Config>> | undefined;
  let logger: Promise<AppLogger> | undefined;
  const listeners: Array<[CliSignal, () => void]> = [];

  const io: OwnedCliIO = {
    // every line may quote a file name, a key or a service message: no escape sequence reaches the terminal, no secret
    out: (text) => print(stdout, `${shown(text)}\n`),
    err: (text) => print(stderr, `${shown(text)}\n`),
    progress: (text, final) => status?.update(shown(text), final),
    stdout,
    stderr,
    env,
    cwd,
    verbose,
    configFile,
    config() {
      config ??= loadConfig(configFile, env, { cwd, secrets }).catch((err: unknown) => {
        config = undefined;
        throw err;
      });
      return config;
    },
    logger() {
      logger ??= io.config().then((loaded) => {
        try {
          return createLogger({
            file: loaded.log.file,
            level: loaded.log.level,
            console: true,
            // console lines go to stdout when it is a terminal, above a progress bar being drawn
            ...(isTerminal(environment.stdout)
              ? { consoleStream: { write: (text: string) => print(stdout, text) }, color: true }
              : {}),
            secrets: configSecrets(loaded),
          });
        } catch (err) {
          // A log file that cannot be opened is a configuration problem (exit 2), not a crash.
          const reason = err instanceof Error && 'code' in err ? String(err.code) : String(err);
          throw new EdocError(
            'EDOC_CONFIG_INVALID',
            `${configFile}: log.file: cannot open ${loaded.log.file} (${reason})`,
            { file: configFile, path: 'log.file' },
            { cause: err },
          );
        }
      });
      logger.catch(() => {
        logger = undefined;
      });
      return logger;
    },
    onSignal(signal, handler) {
      const entry: [CliSignal, () => void] = [signal, handler];
      listeners.push(entry);
      process.on(signal, handler);
      return () => {
        const index = listeners.indexOf(entry);
        if (index !== -1) listeners.splice(index, 1);
        process.off(signal, handler);
      };
    },
    async dispose() {
      status?.end();
      for (const [signal, handler] of listeners.splice(0)) process.off(signal, handler);
      const created = logger;
      logger = undefined;
      if (created)
        await created.then(
          (log) => log.close(),
          () => undefined,
        );
      // main() still writes an error line after run(); a late EPIPE must not crash then either
      setImmediate(() => {
        stdout.release();
        stderr.release();
      });
    },
  };
  return io;
}
