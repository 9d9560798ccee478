export { createLogger, silentLogger } from './logger.js';
export type {
  AppLogger,
  Level,
  LevelWithSilent,
  LineSink,
  Logger,
  LoggerControls,
  LoggerOptions,
} from './logger.js';
export { redactDeep, isSecretKey, REDACTED } from './redact.js';
export { formatConsoleLine } from './console-format.js';
