/**
 * What a pass over a file's bytes learns of it as text, so a later read of the same bytes needs no pass
 * of its own: the content hash's pass (read/hash.ts) collects it, and `openSource` takes it instead of
 * its NUL sniff and, for JSONL, instead of the pass that chose the encoding and met the too-long line.
 * The read still hashes what it reads; bytes that differ from the hashed ones are EDOC_READ_CHANGED.
 */
import { isUtf8 } from 'node:buffer';

export interface TextFacts {
  /** Every byte is UTF-8 (a BOM counts as UTF-8). */
  utf8: boolean;
  /** A NUL byte within the first SNIFF_BYTES: not a text file (open-source.ts's rule). */
  nulInHead: boolean;
  /** The longest line in bytes, without its `\n` (asked for JSONL files only). */
  longestLineBytes?: number;
}

/** How much of a file's head is looked at for NUL bytes. */
export const SNIFF_BYTES = 8 * 1024;

/** Fed with a file's bytes in order, chunk by chunk; `facts()` once the last one was fed. */
export class TextFactsCollector {
  #seen = 0;
  #nul = false;
  #utf8 = true;
  /** The bytes of a character cut by the chunk's end (at most 3), checked with the next chunk. */
  #carry: Buffer | undefined;
  #lines: boolean;
  #line = 0;
  #longest = 0;

  constructor(options: { lines: boolean }) {
    this.#lines = options.lines;
  }

  update(chunk: Buffer): void {
    if (this.#seen < SNIFF_BYTES && !this.#nul)
      this.#nul = chunk.subarray(0, SNIFF_BYTES - this.#seen).includes(0);
    this.#seen += chunk.length;
    if (this.#utf8) this.#checkUtf8(chunk);
    if (this.#lines) this.#measureLines(chunk);
  }

  facts(): TextFacts {
    const utf8 = this.#utf8 && this.#carry === undefined;
    if (!this.#lines) return { utf8, nulInHead: this.#nul };
    return { utf8, nulInHead: this.#nul, longestLineBytes: Math.max(this.#longest, this.#line) };
  }

  #checkUtf8(chunk: Buffer): void {
    const bytes = this.#carry === undefined ? chunk : Buffer.concat([this.#carry, chunk]);
    const cut = incompleteTail(bytes);
    // a copy: the caller's chunk may be a buffer it reuses (file-snapshot.ts's fileChunks)
    this.#carry = cut === bytes.length ? undefined : Buffer.from(bytes.subarray(cut));
    this.#utf8 = isUtf8(bytes.subarray(0, cut));
  }

  #measureLines(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const length = this.#line + nl - start;
      if (length > this.#longest) this.#longest = length;
      this.#line = 0;
      start = nl + 1;
    }
    this.#line += chunk.length - start;
  }
}

/**
 * Where the character the bytes end in begins, when its lead byte asks for more bytes than follow
 * (the rest comes with the next chunk); else the bytes' length. A lead byte is looked for among the
 * last four bytes only: anything else is not UTF-8 whatever follows, and `isUtf8` says so.
 */
function incompleteTail(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= 0 && i >= bytes.length - 4; i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const need = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + need > bytes.length ? i : bytes.length;
  }
  return bytes.length;
}
