import { REDACTED } from './redact.js';

/** Shorter values would blank out ordinary words and numbers. */
const MIN_SECRET_LENGTH = 4;
/**
 * A cut-off start of a secret this long is redacted too: an excerpt of input (policy/excerpt.ts)
 * that ends inside a key would otherwise show its first 60 characters.
 */
const MIN_PREFIX = 8;
/** Up to this many needles (a key and its escaped forms, for a few companies) are looked for in turn. */
const FEW_NEEDLES = 12;
/**
 * A needle is indexed by its pieces at offsets up to this many characters: a text without a cut-off
 * start (no `…`) is looked at every `length - 3`-th position of the shortest needle, up to this.
 */
const WHOLE_SPAN = 64;
/** Bits of the heads filter: a hash of a needle's pieces of MIN_SECRET_LENGTH characters (128 KiB). */
const HEAD_BITS = 20;
const HEAD_MASK = (1 << HEAD_BITS) - 1;

/**
 * Known secret values (the companies' API keys, see config/secrets.ts), scrubbed from every text
 * the bridge writes: finished log lines, result.json, errors.csv, the errors the ledger keeps. A
 * key that slipped into a message string or an error text is caught here even though no key
 * name gives it away. Each value is matched as written, JSON-escaped (log lines, result.json) and
 * CSV-escaped (errors.csv); and where an excerpt cut it off (`abcdefgh…`), its start is removed too.
 */
export class SecretScrubber {
  readonly #needles = new Set<string>();
  /**
   * The needles by their pieces of MIN_SECRET_LENGTH characters (two numbers of two UTF-16 units each;
   * see `#stride` for which pieces), so a text is scanned once for all of them: with hundreds of companies' keys, looking for each key in
   * every log line and every document cost more than the rest of the line's work.
   */
  readonly #byHead = new Map<number, Map<number, string[]>>();
  /**
   * One bit per hash of a needle's pieces: the scan asks the maps above only where the bit is set. With 200 companies' keys every position of a document was two map lookups,
   * a quarter of the intake worker's time; a bit test is a fraction of one.
   */
  readonly #heads = new Uint32Array(1 << (HEAD_BITS - 5));
  /**
   * Every `#stride`-th position of a text is looked at, not each one. A match is at least `span` long
   * (a needle, or a cut-off start of MIN_PREFIX characters), so its first `span - 3` positions each start
   * one of its MIN_SECRET_LENGTH-character pieces, and one of them is a multiple of the stride when the
   * stride is at most `span - 3`: each needle is indexed by its pieces at those offsets (and more:
   * `#wholeStride`). Keys of 8 characters or more: a fifth of the positions.
   */
  #stride = MIN_PREFIX - MIN_SECRET_LENGTH + 1;
  /**
   * The stride for a text with no `…`, where only a whole needle can match (a cut-off start is one
   * that `…` ends): a whole needle of `length` characters starts a piece at each of its first
   * `length - 3` positions, all indexed (up to WHOLE_SPAN), so every `length - 3`-th position of the
   * shortest needle is enough. Keys of 24 characters: a twenty-first of the positions, not a fifth.
   */
  #wholeStride = WHOLE_SPAN - MIN_SECRET_LENGTH + 1;

  constructor(values: Iterable<string> = []) {
    for (const value of values) this.add(value);
  }

  add(value: string): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
    this.#index(value);
    // The line is JSON: the value appears there in its escaped form.
    this.#index(JSON.stringify(value).slice(1, -1));
    if (value.includes('"')) this.#index(value.replace(/"/g, '""'));
  }

  get size(): number {
    return this.#needles.size;
  }

  /** Whether `text` holds a secret (or the cut-off start of one). */
  has(text: string): boolean {
    return this.scrub(text) !== text;
  }

  scrub(text: string): string {
    // A few needles are looked for in turn (a native search each, faster than a scan in JavaScript:
    // a 300,000-row intake with one key spent 10 % more CPU in the scan); many, in one scan.
    let candidates: Set<string> | undefined;
    if (this.#needles.size > FEW_NEEDLES) {
      candidates = this.#candidates(text);
      if (candidates === undefined) return text;
    }
    let result = text;
    // in the order the needles were added, as if each were looked for in turn
    for (const needle of this.#needles) {
      if (candidates !== undefined && !candidates.has(needle)) continue;
      if (result.includes(needle)) result = result.split(needle).join(REDACTED);
      if (needle.length > MIN_PREFIX) result = scrubCutOff(result, needle);
    }
    return result;
  }

  #index(needle: string): void {
    if (this.#needles.has(needle)) return;
    this.#needles.add(needle);
    this.#stride = Math.min(
      this.#stride,
      Math.min(needle.length, MIN_PREFIX) - MIN_SECRET_LENGTH + 1,
    );
    const pieces = Math.min(needle.length, WHOLE_SPAN) - MIN_SECRET_LENGTH + 1;
    this.#wholeStride = Math.min(this.#wholeStride, pieces);
    for (let at = 0; at < pieces; at++) {
      const h = headHash(
        needle.charCodeAt(at),
        needle.charCodeAt(at + 1),
        needle.charCodeAt(at + 2),
        needle.charCodeAt(at + 3),
      );
      this.#heads[h >>> 5] |= 1 << (h & 31);
      const first = pair(needle, at);
      let inner = this.#byHead.get(first);
      if (inner === undefined) this.#byHead.set(first, (inner = new Map()));
      const second = pair(needle, at + 2);
      const list = inner.get(second);
      if (list === undefined) inner.set(second, [needle]);
      else if (!list.includes(needle)) list.push(needle);
    }
  }

  /**
   * The needles one of whose pieces (MIN_SECRET_LENGTH characters at an offset `#index` took) starts at
   * a position of `text` the stride lands on: the only ones that can match (see `#stride`, `#wholeStride`).
   */
  #candidates(text: string): Set<string> | undefined {
    let found: Set<string> | undefined;
    const last = text.length - MIN_SECRET_LENGTH;
    const heads = this.#heads;
    const stride = text.includes('…') ? this.#stride : this.#wholeStride;
    for (let i = 0; i <= last; i += stride) {
      const h = headHash(
        text.charCodeAt(i),
        text.charCodeAt(i + 1),
        text.charCodeAt(i + 2),
        text.charCodeAt(i + 3),
      );
      if ((heads[h >>> 5] & (1 << (h & 31))) === 0) continue;
      const inner = this.#byHead.get(pair(text, i));
      if (inner === undefined) continue;
      const list = inner.get(pair(text, i + 2));
      if (list === undefined) continue;
      found ??= new Set();
      for (const needle of list) found.add(needle);
    }
    return found;
  }
}

/** The heads filter's bit for four UTF-16 code units. */
function headHash(c0: number, c1: number, c2: number, c3: number): number {
  return (Math.imul(Math.imul(Math.imul(c0, 31) + c1, 31) + c2, 31) + c3) & HEAD_MASK;
}

/** Two UTF-16 code units of `text` from `at` as one number. */
function pair(text: string, at: number): number {
  return text.charCodeAt(at) * 0x10000 + text.charCodeAt(at + 1);
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
