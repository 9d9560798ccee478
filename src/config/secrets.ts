import { isSecretKey } from '../log/redact.js';
import { SecretScrubber } from '../log/secrets.js';
import type { Config } from './schema.js';

/**
 * Every secret value of a loaded configuration: each company's API key (read from its apiKeyFile
 * when that was given) and any other string under a key named like a secret.
 */
export function configSecrets(config: Readonly<Config>): string[] {
  const out = new Set<string>(config.companies.map((c) => c.apiKey));
  const walk = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object' || depth > 12) return;
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' && isSecretKey(key)) out.add(item);
      else walk(item, depth + 1);
    }
  };
  walk(config, 0);
  return [...out];
}

const scrubbers = new WeakMap<Readonly<Config>, SecretScrubber>();

/** The scrubber of a (frozen) configuration, built once per configuration: a reload brings a new one. */
export function secretScrubberOf(config: Readonly<Config>): SecretScrubber {
  let scrubber = scrubbers.get(config);
  if (scrubber === undefined) {
    scrubber = new SecretScrubber(configSecrets(config));
    scrubbers.set(config, scrubber);
  }
  return scrubber;
}
