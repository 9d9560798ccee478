import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import type { Level, LevelWithSilent, Logger } from 'pino';
import { formatConsoleLine } from './console-format.js';
import { redactDeep } from './redact.js';
import { SecretScrubber } from './secrets.js';

export type { Level, LevelWithSilent, Logger };

export interface LineSink {
  write(text: string): unknown;
}

export interface LoggerOptions {
  /** The NDJSON log file; its folder is created. */
  file: string;
  /** @defaultValue 'info' */
  level?: LevelWithSilent;
  /** Also print a readable line per event to stdout, when stdout is a terminal. */
  console?: boolean;
  /** Where console lines go instead of stdout (always used when given). */
  consoleStream?: LineSink;
  /** Colour the level of console lines. @defaultValue true when they go to stdout, false to a consoleStream */
  color?: boolean;
  /** Write each line before the log call returns, so a crash loses nothing. @defaultValue true */
  sync?: boolean;
  /** Values scrubbed from every line (the companies' API keys). */
  secrets?: readonly string[];
}

export interface LoggerControls {
  /** Scrub this value from every later line, wherever it appears. */
  registerSecret(value: string): void;
  /** Reopen the log file by name (after logrotate renamed it; on SIGHUP). */
  reopen(): void;
  /** Flush and close the file. Safe to call more than once; later log calls are dropped. */
  close(): Promise<void>;
}

/** A pino logger (child loggers included) plus control of its file. */
export type AppLogger = Logger & LoggerControls;

const DEFAULT_LEVEL: LevelWithSilent = 'info';
/** Logs hold customer data (keys, names, errors): the owner only, whatever the umask (docs/operations.md). */
const PRIVATE_FILE = 0o600;
const PRIVATE_DIR = 0o700;

/**
 * The mode given at open applies only to a file it creates: one made by someone else (logrotate's
 * `create`, an operator's touch) keeps its own. A log file that group or others may read is made the
 * owner's only; one this process cannot change (not its own) is left as it is.
 */
function keepPrivate(file: string): void {
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, PRIVATE_FILE);
  } catch {
    // not there yet (an asynchronous open), or not ours: nothing to tighten here
  }
}

function hoistCode(obj: Record<string, unknown>): Record<string, unknown> {
  const err = obj.err as { code?: unknown } | undefined;
  if (obj.code === undefined && err && typeof err === 'object' && typeof err.code === 'string')
    return { ...obj, code: err.code };
  return obj;
}

/**
 * Stable keys (`msg`, `err`, `code`, `file`, `kind`, `company`, `doc`), ISO
 * `time`, `level` as its name. Secrets are removed twice: by key name at any
 * depth before serialization, and by known value in the finished line.
 */
export function createLogger(options: LoggerOptions): AppLogger {
  const scrubber = new SecretScrubber();
  for (const secret of options.secrets ?? []) scrubber.add(secret);
  mkdirSync(path.dirname(path.resolve(options.file)), { recursive: true, mode: PRIVATE_DIR });
  // A log file that cannot be written (disk full) never takes the process down: lines are dropped and
  // counted, a fresh destination is tried at most once a second, and the first line after it says how
  // many were lost. (A SonicBoom that failed once keeps the torn line and writes nothing after it.)
  let failedAt: number | undefined;
  let lost = 0;
  const open = (): ReturnType<typeof pino.destination> => {
    const d = pino.destination({
      dest: options.file,
      mkdir: true,
      sync: options.sync ?? true,
      append: true,
      mode: PRIVATE_FILE,
    });
    keepPrivate(options.file);
    d.on('error', (err: Error) => {
      if (failedAt === undefined)
        process.stderr.write(
          `edoc-bridge: cannot write the log file ${options.file}: ${err.message}\n`,
        );
      failedAt = Date.now();
      lost++;
    });
    return d;
  };
  let destination = open();
  const recovered = (): boolean => {
    if (failedAt === undefined) return true;
    if (Date.now() - failedAt < 1_000) return false;
    const failed = destination;
    failed.removeAllListeners('error');
    failed.on('error', () => undefined); // its torn buffer is dropped with it
    try {
      failed.destroy();
    } catch {
      /* dropped either way */
    }
    failedAt = undefined;
    destination = open();
    // a newline first: the line torn by the failure ends there, and NDJSON readers skip it
    const dropped = lost;
    lost = 0;
    destination.write(
      `\n${JSON.stringify({
        level: 'warn',
        time: new Date().toISOString(),
        pid: process.pid,
        lost: dropped,
        msg: 'the log file could not be written for a while (disk full?): lines were lost',
      })}\n`,
    );
    if (failedAt !== undefined) lost += dropped; // still full: counted again next time
    return failedAt === undefined;
  };

  const consoleSink =
    options.consoleStream ?? (options.console && process.stdout.isTTY ? process.stdout : undefined);
  const color = consoleSink !== undefined && (options.color ?? options.consoleStream === undefined);
  let closing: Promise<void> | undefined;

  const stream = {
    write(line: string): boolean {
      if (closing) return true;
      if (recovered()) destination.write(line);
      else lost++;
      if (consoleSink) consoleSink.write(formatConsoleLine(line, color));
      return true;
    },
    flush(cb: (err?: Error) => void): void {
      if (closing) {
        cb();
        return;
      }
      destination.flush((err) => cb(err ?? undefined));
    },
  };

  const logger = pino(
    {
      level: options.level ?? DEFAULT_LEVEL,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => redactDeep(bindings),
        log: (obj) => hoistCode(redactDeep(obj)),
      },
      // formatters.log has already turned errors into redacted plain objects; the
      // standard serializer would re-wrap those and report their type as "Object".
      serializers: {
        err: (value: unknown) => (value instanceof Error ? pino.stdSerializers.err(value) : value),
      },
      hooks: { streamWrite: (line) => scrubber.scrub(line) },
    },
    stream,
  );

  // pino applies formatters.bindings to the root only; child bindings pass through
  // here instead. Children inherit this property, so grandchildren are covered too.
  type ChildFn = (this: Logger, bindings: Record<string, unknown>, childOptions?: object) => Logger;
  const pinoChild = (Object.getPrototypeOf(logger) as { child: ChildFn }).child;
  const redactingChild: ChildFn = function child(bindings, childOptions) {
    return pinoChild.call(this, redactDeep(bindings), childOptions);
  };
  logger.child = redactingChild as unknown as Logger['child'];

  const controls: LoggerControls = {
    registerSecret: (value) => scrubber.add(value),
    reopen: () => {
      if (closing) return;
      destination.reopen();
      keepPrivate(options.file);
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        destination.once('close', () => resolve());
        destination.once('error', () => resolve());
        destination.end();
      });
      return closing;
    },
  };
  return Object.assign(logger, controls);
}

/** A logger that writes nothing, for callers that must pass one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
