import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isSecretKey } from '../log/redact.js';
import { SecretScrubber } from '../log/secrets.js';
import { urlPassword } from '../log/url-secret.js';
import { resolvePgConnection } from './pg-connection.js';
import { substituteEnv } from './env.js';
import type { Config } from './schema.js';
import { webhookSecrets } from './webhook-url.js';
import { checkConfigSize, parseConfigYaml } from './yaml-text.js';

/**
 * Every secret value of a loaded configuration: each company's API key (read from its apiKeyFile
 * when that was given) and any other string under a key named like a secret.
 */
export function configSecrets(config: Readonly<Config>): string[] {
  // a loaded configuration is never changed (a reload brings a new object): walked once, not once per file
  let found = secretsOf.get(config);
  if (found === undefined) {
    found = collectSecrets(config);
    secretsOf.set(config, found);
  }
  return [...found];
}

const secretsOf = new WeakMap<Readonly<Config>, readonly string[]>();

function collectSecrets(config: Readonly<Config>): string[] {
  const out = new Set<string>(config.companies.map((c) => c.apiKey));
  const ledgerPassword =
    config.ledger?.url === undefined ? undefined : ledgerPasswordOf(config.ledger.url);
  if (ledgerPassword !== undefined) {
    // as written and as it appears inside a URL (a message quoting the URL shows it encoded)
    out.add(ledgerPassword);
    out.add(encodeURIComponent(ledgerPassword));
  }
  const walk = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object' || depth > 12) return;
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' && isSecretKey(key)) out.add(item);
      else walk(item, depth + 1);
    }
  };
  walk(config, 0);
  for (const part of webhookSecrets(config.alerts.webhook)) out.add(part);
  return [...out];
}

/**
 * The ledger's password as the connection will use it: from the URL, else PGPASSWORD, else the pgpass
 * file (docs/configuration.md, "ledger"). A password given outside the URL is as secret as one in it.
 */
function ledgerPasswordOf(url: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!/^postgres(ql)?:/i.test(url)) return urlPassword(url);
  try {
    return resolvePgConnection(url, env).password;
  } catch {
    // a URL that does not parse is refused elsewhere; what it holds after `user:` is still scrubbed
    return urlPassword(url);
  }
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

/**
 * The secrets a configuration file names, read as far as it can be without validating it: each
 * company's `apiKey` (with `${VAR}` / `${VAR:-default}` taken from `env`), the content of a readable
 * `apiKeyFile`, any string under a key named like a secret, and the password of a URL (ledger.url's:
 * from the URL, else PGPASSWORD or the pgpass file). For scrubbing an error line when the
 * configuration could not be loaded (a mapping error quoting a key) or was loaded without its secrets
 * (read-only commands): nothing here ever fails.
 */
export function bestEffortSecrets(file: string, env: NodeJS.ProcessEnv, cwd: string): string[] {
  const out = new Set<string>();
  let data: unknown;
  try {
    const resolved = path.resolve(cwd, file);
    checkConfigSize(file, statSync(resolved).size);
    data = parseConfigYaml(readFileSync(resolved, 'utf8'), file);
  } catch {
    return [];
  }
  // the loader's own substitution rule (config/env.ts); a variable it cannot resolve names no secret
  const expand = (text: string): string => {
    try {
      return substituteEnv(text, env, file) as string;
    } catch {
      return '';
    }
  };
  const walk = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object' || depth > 12) return;
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' && key === 'apiKeyFile') {
        try {
          out.add(
            readFileSync(
              path.resolve(path.dirname(path.resolve(cwd, file)), expand(item)),
              'utf8',
            ).trim(),
          );
        } catch {
          // unreadable: nothing it holds can have been printed either
        }
      } else if (typeof item === 'string' && isSecretKey(key)) out.add(expand(item));
      else if (typeof item === 'string' && key === 'webhook')
        for (const part of webhookSecrets(expand(item))) out.add(part);
      else if (typeof item === 'string' && item.includes('://')) {
        // a URL's password (ledger.url, or PGPASSWORD / the pgpass file for it): as written and URL-encoded
        const password = ledgerPasswordOf(expand(item), env);
        if (password !== undefined) out.add(password).add(encodeURIComponent(password));
      } else walk(item, depth + 1);
    }
  };
  walk(data, 0);
  return [...out].filter((s) => s !== '');
}
