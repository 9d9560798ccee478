/**
 * What the content hash's pass learns of a file as text (src/read/text-facts.ts), and how `openSource`
 * reads a JSONL file with it in one pass: the encoding it saw, its NUL sniff, and the fallback to the
 * pass of its own when a line is too long. Byte values below are written out by hand.
 */
import { utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashFile } from '../../src/read/hash.js';
import { openSource } from '../../src/read/open-source.js';
import { TextFactsCollector, type TextFacts } from '../../src/read/text-facts.js';
import { all, COMPANY, edocError, removeDir, tempDir } from './read-helpers.js';

/** The facts of `bytes` fed in two chunks cut at `at`. */
function factsCut(bytes: Buffer, at: number, lines = true): TextFacts {
  const c = new TextFactsCollector({ lines });
  c.update(bytes.subarray(0, at));
  c.update(bytes.subarray(at));
  return c.facts();
}

describe('TextFactsCollector', () => {
  // a = 61, ñ = C3 B1, € = E2 82 AC, 😀 = F0 9F 98 80, then \n: 1 + 2 + 3 + 4 = 10 bytes before it
  const mixed = Buffer.from([0x61, 0xc3, 0xb1, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0x0a]);

  it('says UTF-8 wherever a chunk cuts a character of two, three or four bytes', () => {
    expect(mixed.toString('utf8')).toBe('añ€😀\n');
    for (let at = 0; at <= mixed.length; at++)
      expect([at, factsCut(mixed, at)]).toEqual([
        at,
        { utf8: true, nulInHead: false, longestLineBytes: 10 },
      ]);
  });

  it('says not UTF-8 for Windows-1252 bytes, an overlong form, or a character cut off at the end', () => {
    const cafe = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "café" in Windows-1252
    const overlong = Buffer.from([0x61, 0xc0, 0xaf, 0x62]); // "/" written in two bytes
    const cutOff = Buffer.from([0x61, 0x62, 0xe2, 0x82]); // € without its last byte
    for (const bytes of [cafe, overlong, cutOff])
      for (let at = 0; at <= bytes.length; at++) expect(factsCut(bytes, at).utf8).toBe(false);
  });

  it('keeps the cut bytes of a character when the caller reuses its chunk buffer', () => {
    const buffer = Buffer.alloc(1);
    const c = new TextFactsCollector({ lines: false });
    buffer[0] = 0xc3; // ñ's first byte …
    c.update(buffer);
    buffer[0] = 0xb1; // … its second, in the same buffer
    c.update(buffer);
    expect(c.facts()).toEqual({ utf8: true, nulInHead: false });
  });

  it('finds a NUL in the first 8,192 bytes only, whatever the chunks', () => {
    for (const [at, nul] of [
      [0, true],
      [8_191, true],
      [8_192, false],
    ] as const) {
      const bytes = Buffer.alloc(10_000, 0x61);
      bytes[at] = 0;
      const c = new TextFactsCollector({ lines: false });
      for (let i = 0; i < bytes.length; i += 1_000) c.update(bytes.subarray(i, i + 1_000));
      expect([at, c.facts().nulInHead]).toEqual([at, nul]);
    }
  });

  it("measures the longest line in bytes across chunks, a CR counted and the last line's too", () => {
    // "ab\r" 3, "cde" 3, "" 0, "fghij" 5 (no \n after it)
    const bytes = Buffer.from('ab\r\ncde\n\nfghij');
    for (const size of [1, 2, 3, 5, 100]) {
      const c = new TextFactsCollector({ lines: true });
      for (let i = 0; i < bytes.length; i += size) c.update(bytes.subarray(i, i + size));
      expect([size, c.facts().longestLineBytes]).toEqual([size, 5]);
    }
    // a line of 7 between two short ones, cut in every place
    const middle = Buffer.from('x\n1234567\nyz');
    for (let at = 0; at <= middle.length; at++)
      expect(factsCut(middle, at).longestLineBytes).toBe(7);
  });
});

describe('openSource with the facts of the content hash', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });
  const write = async (name: string, bytes: string | Buffer): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, bytes);
    return file;
  };
  /** Opens `file` as the intake does: with the size, mtime and text facts of its hash. */
  const openHashed = async (file: string, extra = {}) => {
    const h = await hashFile(file);
    return openSource(file, 'invoice', {
      company: COMPANY,
      expect: { size: h.size, mtimeMs: h.mtimeMs },
      text: h.text,
      ...extra,
    });
  };

  it('hashFile measures lines for .jsonl files only', async () => {
    // {"a":1} is 7 bytes, {"b":"ñ"} 10 (ñ two bytes)
    const text = '{"a":1}\n{"b":"ñ"}\n';
    expect((await hashFile(await write('l.jsonl', text))).text).toEqual({
      utf8: true,
      nulInHead: false,
      longestLineBytes: 10,
    });
    expect((await hashFile(await write('l.json', text))).text).toEqual({
      utf8: true,
      nulInHead: false,
    });
  });

  it('reads a Windows-1252 JSONL file in that encoding, its accents right', async () => {
    // "año" with ñ = F1 in Windows-1252
    const bytes = Buffer.concat([
      Buffer.from('{"d":"a'),
      Buffer.from([0xf1]),
      Buffer.from('o"}\n{"d":"x"}\n'),
    ]);
    const source = await openHashed(await write('w.jsonl', bytes));
    expect(source.encoding).toBe('windows-1252');
    expect((await all(source.documents)).map((d) => d.request)).toEqual([{ d: 'año' }, { d: 'x' }]);
  });

  it('takes a file whose bytes are no longer UTF-8 where the hash saw UTF-8 as changed', async () => {
    const file = await write('c.jsonl', '{"d":"añ"}\n'); // ñ = C3 B1
    const mtime = new Date('2026-11-01T00:00:00Z'); // whole seconds: set again exactly below
    await utimes(file, mtime, mtime);
    const h = await hashFile(file);
    // same size and mtime, other bytes: "aé" + "x" in Windows-1252 (E9 is no UTF-8 on its own)
    await writeFile(
      file,
      Buffer.concat([Buffer.from('{"d":"a'), Buffer.from([0xe9, 0x78, 0x22, 0x7d, 0x0a])]),
    );
    await utimes(file, mtime, mtime);
    const source = await openSource(file, 'invoice', {
      company: COMPANY,
      expect: { size: h.size, mtimeMs: h.mtimeMs },
      text: h.text,
    });
    const err = await edocError(all(source.documents), 'EDOC_READ_CHANGED');
    expect(err.message).toMatch(/changed while it was read/);
  });

  it('takes a line too long that the hashed bytes did not have as a change, not as the file refused', async () => {
    // lines of 7, 7 and 7 bytes (23 with their \n); the limit 10
    const file = await write('joined.jsonl', '{"a":1}\n{"b":2}\n{"c":3}\n');
    const mtime = new Date('2026-11-01T00:00:00Z');
    await utimes(file, mtime, mtime);
    const h = await hashFile(file);
    expect(h.text.longestLineBytes).toBe(7);
    // same size and mtime: the first \n a blank, so line 1 is 7 + 1 + 7 = 15 bytes, over the limit
    await writeFile(file, '{"a":1} {"b":2}\n{"c":3}\n');
    await utimes(file, mtime, mtime);
    const source = await openSource(file, 'invoice', {
      company: COMPANY,
      expect: { size: h.size, mtimeMs: h.mtimeMs },
      text: h.text,
      maxLineBytes: 10,
    });
    const err = await edocError(all(source.documents), 'EDOC_READ_CHANGED');
    expect(err.message).toMatch(/changed while it was read/);
    expect(err.context.reason).toBe('changed');
  });

  it('meets a line too long before any document, as without the facts', async () => {
    // lines of 7, 26 and 7 bytes; the limit 20: line 2 is refused when the file is opened
    const file = await write('long.jsonl', `{"a":1}\n{"b":"${'x'.repeat(18)}"}\n{"c":3}\n`);
    expect((await hashFile(file)).text.longestLineBytes).toBe(26);
    const err = await edocError(openHashed(file, { maxLineBytes: 20 }), 'EDOC_READ_JSON');
    expect(err.context.line).toBe(2);
  });

  it('reads a BOM and CRLF lines as without the facts; a file of blank lines only is still empty', async () => {
    const bom = await write('bom.jsonl', '\uFEFF{"a":1}\r\n\r\n{"b":2}\r\n');
    const source = await openHashed(bom);
    expect(source.encoding).toBe('utf-8');
    expect((await all(source.documents)).map((d) => [d.request, d.source])).toEqual([
      [{ a: 1 }, { lines: [1] }],
      [{ b: 2 }, { lines: [3] }],
    ]);
    const blank = await openHashed(await write('blank.jsonl', '\n  \r\n\n'));
    await edocError(all(blank.documents), 'EDOC_READ_EMPTY');
  });

  it('refuses a file the hash saw a NUL in without a sniff of its own', async () => {
    for (const name of ['n.jsonl', 'n.csv', 'n.json'])
      await edocError(
        openHashed(await write(name, Buffer.from([0x7b, 0x00, 0x7d]))),
        'EDOC_READ_BINARY',
      );
  });
  /** `lines` lines `{"d":"x…x"}` of 100 bytes each, 101 with their \n. */
  const xLines = (lines: number): Buffer =>
    Buffer.from(`{"d":"${'x'.repeat(92)}"}\n`.repeat(lines));

  it('reads a Windows-1252 file whose one accented byte sits at a chunk boundary or ends the file', async () => {
    // 2,600 lines of 101 bytes = 262,600 bytes; 64 KiB = 65,536 = 648 × 101 + 88 and 256 KiB = 262,144 =
    // 2,595 × 101 + 49: offsets 88 and 49 of a line are in its x's (bytes 6 to 97), so é (E9) replaces an x
    for (const at of [65_535, 65_536, 262_143, 262_144]) {
      const bytes = xLines(2_600);
      expect(bytes[at]).toBe(0x78);
      bytes[at] = 0xe9;
      const source = await openHashed(await write(`b${at}.jsonl`, bytes));
      expect([at, source.encoding]).toEqual([at, 'windows-1252']);
      const docs = await all(source.documents);
      expect(docs).toHaveLength(2_600);
      const line = Math.floor(at / 101); // 0-based
      expect((docs[line].request as { d: string }).d.indexOf('é')).toBe((at % 101) - 6);
      expect(docs.every((d) => d.problems.length === 0)).toBe(true);
    }
    // the last byte: 'ó' (F3), a lead byte of four in UTF-8 with nothing after it
    const last = Buffer.concat([xLines(1), Buffer.from('{"d":"'), Buffer.from([0xf3])]);
    const source = await openHashed(await write('last.jsonl', last));
    expect(source.encoding).toBe('windows-1252');
    const docs = await all(source.documents);
    expect(docs.map((d) => d.raw.slice(-2))).toEqual(['"}', '"ó']);
  });

  it("reads UTF-8 with a four-byte character cut by the hash's 256 KiB chunk", async () => {
    // 😀 = F0 9F 98 80 starts 1, 2 or 3 bytes before 262,144: its line is 262,144 - cut + 4 + 3 bytes long
    for (const cut of [1, 2, 3]) {
      const head = Buffer.from(`{"d":"${'x'.repeat(262_144 - cut - 6)}`);
      const bytes = Buffer.concat([head, Buffer.from('😀"}\n{"e":1}\n')]);
      expect(bytes.subarray(262_144 - cut, 262_144 - cut + 4)).toEqual(
        Buffer.from([0xf0, 0x9f, 0x98, 0x80]),
      );
      const source = await openHashed(await write(`e${cut}.jsonl`, bytes), {
        maxRecordBytes: 512 * 1024,
      });
      expect([cut, source.encoding]).toEqual([cut, 'utf-8']);
      const docs = await all(source.documents);
      expect((docs[0].request as { d: string }).d.endsWith('x😀')).toBe(true);
      expect(docs[1].request).toEqual({ e: 1 });
    }
  });

  it('reads a line over the limit in bytes but within it in characters, as before the facts', async () => {
    // {"d":"ñ…ñ"}: 8 characters + 80 ñ = 88 characters, 8 + 80 × 2 = 168 bytes; the limit 100
    const line = `{"d":"${'ñ'.repeat(80)}"}`;
    expect([line.length, Buffer.byteLength(line)]).toEqual([88, 168]);
    const file = await write('n.jsonl', `${line}\n{"a":1}\n`);
    expect((await hashFile(file)).text.longestLineBytes).toBe(168);
    const source = await openHashed(file, { maxRecordBytes: 100 });
    expect((await all(source.documents)).map((d) => d.request)).toEqual([
      { d: 'ñ'.repeat(80) },
      { a: 1 },
    ]);
    // exactly 100 characters is within it, 101 not: x's for ñ's, {"d":"…"} around 92 or 93 of them
    const at = await openHashed(await write('at.jsonl', `{"d":"${'x'.repeat(92)}"}\n`), {
      maxRecordBytes: 100,
    });
    expect(await all(at.documents)).toHaveLength(1);
    const over = await write('over.jsonl', `{"a":1}\n{"d":"${'x'.repeat(93)}"}\n`);
    const err = await edocError(openHashed(over, { maxRecordBytes: 100 }), 'EDOC_READ_JSON');
    expect(err.context.line).toBe(2);
  });
});
