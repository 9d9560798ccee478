import { redactDeep } from '../log/redact.js';
import type { Config } from './schema.js';

/** The configuration as it may be logged: API keys (and anything named like a secret) replaced by "[redacted]". */
export function redactConfig(config: Readonly<Config>): Record<string, unknown> {
  return redactDeep(config) as unknown as Record<string, unknown>;
}
