/**
 * Encoding and delimiter of a delimited export, decided before parsing:
 * `auto` encoding = BOM -> UTF-8; every byte valid UTF-8 -> UTF-8; otherwise
 * Windows-1252 (what Colombian ERPs on Windows write). The whole file is
 * scanned for `auto` because one `ñ` near the end decides it. A UTF-8 file
 * with a BOM is recorded as `utf-8-bom` (see detectEncoding).
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import iconv from 'iconv-lite';
import type { MappingFormat } from '../map/mapping-types.js';

export type CsvEncoding = 'utf-8' | 'windows-1252' | 'latin1';
export type CsvDelimiter = ';' | ',' | '\t';

const SNIFF_BYTES = 64 * 1024;

async function head(file: string, bytes: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Length of an incomplete UTF-8 sequence at the end of `buf` (0 to 3 bytes). */
function incompleteTail(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back += 1) {
    const b = buf[buf.length - back];
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

export async function isWholeFileUtf8(file: string): Promise<boolean> {
  let carry = Buffer.alloc(0);
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    const buf = carry.length === 0 ? (chunk as Buffer) : Buffer.concat([carry, chunk as Buffer]);
    const tail = incompleteTail(buf);
    if (!isUtf8(buf.subarray(0, buf.length - tail))) return false;
    carry = Buffer.from(buf.subarray(buf.length - tail));
  }
  return carry.length === 0;
}

/**
 * The encoding name recorded for a UTF-8 file that starts with a byte order mark. The decoder drops
 * the BOM (iconv-lite strips it), so the header and rows kept for the retry file do not hold it; this
 * name is what tells the retry file to write it back (src/report/retry-file.ts).
 */
export const UTF8_WITH_BOM = 'utf-8-bom';

async function startsWithUtf8Bom(file: string): Promise<boolean> {
  const start = await head(file, 3);
  return start.length === 3 && start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf;
}

/**
 * `decoding`: the encoding to decode with (the decoder drops a BOM). `recorded`: the name the file's
 * encoding is reported and recorded under, `utf-8-bom` for UTF-8 that starts with a BOM (detected or
 * configured), so that what is written back in the original format (the retry file) starts with
 * the BOM as the original did.
 */
export async function detectEncoding(
  file: string,
  configured: MappingFormat['encoding'],
): Promise<{ decoding: CsvEncoding; recorded: string; utf8Checked?: boolean }> {
  const bom = await startsWithUtf8Bom(file);
  const wholeUtf8 = configured === 'auto' && !bom ? await isWholeFileUtf8(file) : undefined;
  // Latin-1 leaves the bytes 0x80-0x9F to control characters no export means; Windows-1252, its
  // superset, has the € “ ” – … an export said to be Latin-1 was written with there
  const decoding =
    configured === 'latin1'
      ? 'windows-1252'
      : configured !== 'auto'
        ? configured
        : bom || wholeUtf8 === true
          ? 'utf-8'
          : 'windows-1252';
  const recorded = decoding === 'utf-8' && bom ? UTF8_WITH_BOM : decoding;
  return wholeUtf8 === true ? { decoding, recorded, utf8Checked: true } : { decoding, recorded };
}

/** Text of the first record's line (quotes respected), for sniffing and naming the header. */
export async function firstLine(file: string, encoding: CsvEncoding): Promise<string> {
  const text = iconv.decode(await head(file, SNIFF_BYTES), encoding);
  let inQuotes = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '"') inQuotes = !inQuotes;
    else if ((c === '\n' || c === '\r') && !inQuotes) return text.slice(0, i);
  }
  return text;
}

/** The candidate occurring most often outside quotes in the header line; `;` when none does. */
export function sniffDelimiter(headerLine: string): CsvDelimiter {
  const counts: Record<CsvDelimiter, number> = { ';': 0, ',': 0, '\t': 0 };
  let inQuotes = false;
  for (const c of headerLine) {
    if (c === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (c === ';' || c === ',' || c === '\t')) counts[c] += 1;
  }
  const best = (Object.entries(counts) as [CsvDelimiter, number][]).sort((a, b) => b[1] - a[1])[0];
  return best[1] === 0 ? ';' : best[0];
}
