import { redactDeep } from '../log/redact.js';
import { redactUrlPassword } from '../log/url-secret.js';
import type { Config } from './schema.js';

/**
 * The configuration as it may be logged: API keys (and anything named like a secret) replaced by
 * "[redacted]", and so is the password in ledger.url.
 */
export function redactConfig(config: Readonly<Config>): Record<string, unknown> {
  const redacted = redactDeep(config) as unknown as Record<string, unknown>;
  const url = config.ledger?.url;
  return url === undefined ? redacted : { ...redacted, ledger: { ...config.ledger, url: redactUrlPassword(url) } };
}
