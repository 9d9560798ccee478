import { redactDeep } from '../log/redact.js';
import { redactUrlPassword } from '../log/url-secret.js';
import type { Config } from './schema.js';
import { redactedWebhook } from './webhook-url.js';

/**
 * The configuration as it may be logged: API keys (and anything named like a secret) replaced by
 * "[redacted]", and so is the password in ledger.url.
 */
export function redactConfig(config: Readonly<Config>): Record<string, unknown> {
  const redacted = redactDeep(config) as unknown as Record<string, unknown>;
  // the password in ledger.url: redacted; the webhook URL carries its receiver's token: shown as its origin only
  const url = config.ledger?.url;
  if (url !== undefined) redacted.ledger = { ...config.ledger, url: redactUrlPassword(url) };
  const alerts = redacted.alerts as Record<string, unknown> | undefined;
  if (alerts !== undefined && typeof alerts.webhook === 'string')
    redacted.alerts = { ...alerts, webhook: redactedWebhook(alerts.webhook) };
  return redacted;
}
