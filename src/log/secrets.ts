import { REDACTED } from './redact.js';

/** Shorter values would blank out ordinary words and numbers. */
const MIN_SECRET_LENGTH = 4;
/**
 * A cut-off start of a secret this long is redacted too: an excerpt of input (policy/excerpt.ts)
 * that ends inside a key would otherwise show its first 60 characters.
 */
const MIN_PREFIX = 8;

/**
 * Known secret values (the companies' API keys, see config/secrets.ts), scrubbed from every text
 * the bridge writes: finished log lines, result.json, errors.csv, the errors the ledger keeps. A
 * key that slipped into a message string or an error text is caught here even though no key
 * name gives it away. Each value is matched as written, JSON-escaped (log lines, result.json) and
 * CSV-escaped (errors.csv); and where an excerpt cut it off (`abcdefgh…`), its start is removed too.
 */
export class SecretScrubber {
  readonly #needles = new Set<string>();

  constructor(values: Iterable<string> = []) {
    for (const value of values) this.add(value);
  }

  add(value: string): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
    this.#needles.add(value);
    // The line is JSON: the value appears there in its escaped form.
    this.#needles.add(JSON.stringify(value).slice(1, -1));
    if (value.includes('"')) this.#needles.add(value.replace(/"/g, '""'));
  }

  get size(): number {
    return this.#needles.size;
  }

  /** Whether `text` holds a secret (or the cut-off start of one). */
  has(text: string): boolean {
    return this.scrub(text) !== text;
  }

  scrub(text: string): string {
    let result = text;
    for (const needle of this.#needles) {
      if (result.includes(needle)) result = result.split(needle).join(REDACTED);
      if (needle.length > MIN_PREFIX) result = scrubCutOff(result, needle);
    }
    return result;
  }
}

/** Replaces every run of at least MIN_PREFIX characters that a `…` ends and that starts `needle`. */
function scrubCutOff(text: string, needle: string): string {
  const head = needle.slice(0, MIN_PREFIX);
  let from = text.indexOf(head);
  if (from === -1) return text;
  let out = '';
  let last = 0;
  while (from !== -1) {
    let end = from + MIN_PREFIX;
    while (end < text.length && end - from < needle.length && text[end] === needle[end - from])
      end += 1;
    if (text[end] === '…') {
      out += `${text.slice(last, from)}${REDACTED}`;
      last = end;
    }
    from = text.indexOf(head, Math.max(end, from + 1));
  }
  return out + text.slice(last);
}
