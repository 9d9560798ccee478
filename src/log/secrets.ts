import { REDACTED } from './redact.js';

/** Shorter values would blank out ordinary words and numbers. */
const MIN_SECRET_LENGTH = 4;

/**
 * Known secret values (the companies' API keys), scrubbed from every finished
 * log line: a key that slipped into a message string or an error text is
 * caught here even though no key name gives it away.
 */
export class SecretScrubber {
  readonly #needles = new Set<string>();

  add(value: string): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
    this.#needles.add(value);
    // The line is JSON: the value appears there in its escaped form.
    this.#needles.add(JSON.stringify(value).slice(1, -1));
  }

  scrub(line: string): string {
    let result = line;
    for (const needle of this.#needles) {
      if (result.includes(needle)) result = result.split(needle).join(REDACTED);
    }
    return result;
  }
}
