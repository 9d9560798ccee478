export { configSchema, LOG_LEVELS, isLoopbackHost } from './schema.js';
export type { Config, CompanyConfig, KindConfig, ParsedConfig, PosKindConfig } from './schema.js';
export { loadConfig, resolveConfig, DEFAULT_CONFIG_FILE } from './load.js';
export type { ResolveOptions } from './load.js';
export { redactConfig } from './redact.js';
export { parseDuration } from './duration.js';
export type { ConfigProblem } from './issues.js';
