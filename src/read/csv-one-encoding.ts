/**
 * A delimited export is read in one encoding, so a file whose bytes are in two is refused before any of
 * it is read (EDOC_READ_ENCODING), naming the line: a UTF-8 export with one row pasted from a Windows
 * program (one `ñ` as the byte 0xF1) is not valid UTF-8, so `auto` reads it all as Windows-1252 and every
 * other name comes out as `MarÃ­a`; read as UTF-8 (a byte-order mark, or the mapping says so), that byte
 * becomes `�`. Either way a customer's name would be issued wrong. UTF-8's accented letters (the bytes
 * C3 80–BF, C2 A0–BF: `Ã` or `Â` followed by a symbol in Windows-1252) do not occur in Spanish text
 * written in Windows-1252, so finding them in a file read so means the file holds UTF-8 text.
 */
import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import path from 'node:path';
import { EdocError } from '../errors.js';
import { detectEncoding, isWholeFileUtf8 } from './csv-encoding.js';
import type { CsvEncoding } from './csv-encoding.js';
import type { MappingFormat } from '../map/mapping-types.js';

/** The first UTF-8 accented letter (or sign) in `buf`: C3 80–BF or C2 A0–BF; -1 when none. */
function utf8Letter(buf: Buffer): number {
  let first = -1;
  for (const [lead, low] of [
    [0xc3, 0x80],
    [0xc2, 0xa0],
  ]) {
    // indexOf: native, so a large Windows-1252 file costs no loop over its bytes in JavaScript
    for (let i = buf.indexOf(lead); i >= 0 && i < buf.length - 1; i = buf.indexOf(lead, i + 1)) {
      const next = buf[i + 1];
      if (next >= low && next <= 0xbf) {
        if (first < 0 || i < first) first = i;
        break;
      }
    }
  }
  return first;
}

/** Length of a valid UTF-8 sequence at `i`, 0 when the bytes there are not UTF-8 (-1: cut at the end). */
function sequence(buf: Buffer, i: number): number {
  const b = buf[i];
  if (b < 0x80) return 1;
  const n =
    b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (n === 0) return 0;
  if (i + n > buf.length) return -1;
  return isUtf8(buf.subarray(i, i + n)) ? n : 0;
}

/** The line (1-based) of the byte at `offset`: a second pass, run only for a file being refused. */
async function lineAt(file: string, offset: number): Promise<number> {
  let line = 1;
  let base = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    const buf = chunk as Buffer;
    const end = Math.min(buf.length, offset - base);
    for (let i = buf.indexOf(0x0a); i >= 0 && i < end; i = buf.indexOf(0x0a, i + 1)) line += 1;
    base += buf.length;
    if (base > offset) break;
  }
  return line;
}

/** The line and value of the first byte `find` points at, streaming the file; undefined when none. */
async function firstLineWhere(
  file: string,
  find: (buf: Buffer) => { at: number; keep: number },
): Promise<{ line: number; byte: number } | undefined> {
  let base = 0;
  let carry = Buffer.alloc(0);
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    const buf = carry.length === 0 ? (chunk as Buffer) : Buffer.concat([carry, chunk as Buffer]);
    const { at, keep } = find(buf);
    if (at >= 0) return { line: await lineAt(file, base + at), byte: buf[at] };
    base += buf.length - keep;
    carry = Buffer.from(buf.subarray(buf.length - keep));
  }
  return undefined;
}

function notUtf8(buf: Buffer): { at: number; keep: number } {
  for (let i = 0; i < buf.length;) {
    const n = sequence(buf, i);
    if (n === 0) return { at: i, keep: 0 };
    if (n < 0) return { at: -1, keep: buf.length - i };
    i += n;
  }
  return { at: -1, keep: 0 };
}

function hex(byte: number): string {
  return `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * Refuses a file holding a NUL byte, read as UTF-8 that holds a byte that is not, or read as Windows-1252
 * (latin1 is read so, csv-encoding.ts) that holds UTF-8 letters. `utf8Checked`: the whole file is known to be valid UTF-8 already.
 */
async function checkOneEncoding(
  file: string,
  decoding: CsvEncoding,
  utf8Checked = false,
): Promise<void> {
  const name = path.basename(file);
  if (decoding === 'utf-8') {
    noNul(await firstLineWhere(file, (buf) => ({ at: buf.indexOf(0), keep: 0 })), name);
    if (utf8Checked || (await isWholeFileUtf8(file))) return;
    const bad = await firstLineWhere(file, notUtf8);
    if (bad === undefined) return;
    throw unreadable(
      'EDOC_READ_ENCODING',
      name,
      bad.line,
      `is read as UTF-8, but line ${bad.line} holds the byte ${hex(bad.byte)}, which is not UTF-8 ` +
        '(a character written in Windows-1252, such as ñ or é, in a row pasted from another program): it would be issued as "�"',
      'save the whole export in one encoding and drop it again',
    );
  }
  // one pass for both: the first NUL byte or UTF-8 letter
  const letter = await firstLineWhere(file, (buf) => {
    const nul = buf.indexOf(0);
    const at = utf8Letter(nul < 0 ? buf : buf.subarray(0, nul));
    const last = buf.length > 0 ? buf[buf.length - 1] : 0;
    return { at: at >= 0 ? at : nul, keep: last === 0xc3 || last === 0xc2 ? 1 : 0 };
  });
  if (letter === undefined) return;
  if (letter.byte === 0) noNul(letter, name);
  const bad = await firstLineWhere(file, notUtf8);
  throw unreadable(
    'EDOC_READ_ENCODING',
    name,
    letter.line,
    'is read as Windows-1252' +
      (bad === undefined
        ? ' (as the mapping says)'
        : ` (line ${bad.line} holds the byte ${hex(bad.byte)}, which is not UTF-8)`) +
      `, but line ${letter.line} holds UTF-8 text (an accented letter written as two bytes): its names would be issued as "MarÃ­a"`,
    'save the whole export in one encoding and drop it again',
  );
}

/**
 * A NUL byte anywhere: open-source.ts sniffs the first 8 KiB for one (not a text file); past them it would
 * reach a cell, and a name such as "Mar\0a" would be issued.
 */
function noNul(nul: { line: number } | undefined, name: string): void {
  if (nul === undefined) return;
  throw unreadable(
    'EDOC_READ_BINARY',
    name,
    nul.line,
    `is not a text file: line ${nul.line} holds a NUL byte, which no text export writes`,
    'export it again',
  );
}

/**
 * The error for bytes that cannot be read right. `finding` (what is wrong, after the file's name) is kept
 * in the context apart from what it means for an export, so a master-data table (master-file.ts) says
 * the same finding in its own terms.
 */
function unreadable(
  code: 'EDOC_READ_ENCODING' | 'EDOC_READ_BINARY',
  name: string,
  line: number,
  finding: string,
  fix: string,
): EdocError {
  return new EdocError(code, `${name} ${finding}. Nothing of the file is sent; ${fix}`, {
    file: name,
    row: line,
    finding,
  });
}

/**
 * The file's encoding (csv-encoding.ts `detectEncoding`), once its bytes are known to be text (no NUL) in
 * that one encoding.
 */
export async function oneEncoding(
  file: string,
  configured: MappingFormat['encoding'],
): Promise<{ decoding: CsvEncoding; recorded: string }> {
  const { decoding, recorded, utf8Checked } = await detectEncoding(file, configured);
  await checkOneEncoding(file, decoding, utf8Checked);
  return { decoding, recorded };
}
