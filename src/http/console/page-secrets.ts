/**
 * The configured secrets (API keys, the console token, passwords, the webhook's secret parts) taken
 * out of a console page. File names, customer names and the service's messages are outside text: a
 * file named after a key, or a message quoting one, would otherwise show it to whoever reads the
 * console. Each secret is looked for as written and as the page escapes it.
 */
import { configSecrets } from '../../config/secrets.js';
import type { Config } from '../../config/schema.js';
import { SecretScrubber } from '../../log/secrets.js';
import { escape } from './html.js';

const scrubbers = new WeakMap<Readonly<Config>, SecretScrubber>();

/** The page scrubber of a (frozen) configuration, built once: a reload brings a new configuration. */
export function pageScrubberOf(config: Readonly<Config>): SecretScrubber {
  let scrubber = scrubbers.get(config);
  if (scrubber === undefined) {
    scrubber = new SecretScrubber(
      configSecrets(config).flatMap((secret) => [secret, escape(secret)]),
    );
    scrubbers.set(config, scrubber);
  }
  return scrubber;
}
