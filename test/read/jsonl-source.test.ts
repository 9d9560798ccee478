import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readJsonlDocuments } from '../../src/read/jsonl-source.js';
import { openSource } from '../../src/read/open-source.js';
import { COMPANY, FIXTURES, all, edocError, removeDir, tempDir } from './read-helpers.js';

describe('JSONL input', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('reads one document per line; a bad line is a document with a problem and the others go on', async () => {
    const source = await openSource(path.join(FIXTURES, 'mixed.jsonl'), 'invoice', {
      company: COMPANY,
    });
    expect(source).toMatchObject({ format: 'jsonl', encoding: 'utf-8', count: 4 });
    const docs = await all(source.documents);
    expect(docs.map((d) => d.source.lines)).toEqual([[1], [3], [4], [5]]);
    expect(docs.map((d) => d.index)).toEqual([0, 1, 2, 3]);
    expect(docs[0]).toEqual({
      index: 0,
      source: { lines: [1] },
      request: { Number: '1' },
      problems: [],
      raw: '{"Number":"1"}',
      requestFromRaw: true,
    });
    expect(docs[1].request).toBeUndefined();
    expect(docs[1].requestFromRaw).toBeUndefined();
    expect(docs[1].raw).toBe('{"Number": 2,,}');
    expect(docs[1].problems).toEqual([
      expect.objectContaining({ code: 'EDOC_READ_JSON', path: '' }),
    ]);
    expect(docs[1].problems[0].message).toMatch(/^line 3 is not valid JSON/);
    expect(docs[2].problems[0].message).toBe('line 4 is not a JSON object');
    expect(docs[3].request).toEqual({ Number: '4' });
  });

  it('parse: false hands out the text of each line only (the counting pass parses no line)', async () => {
    async function* chunks(): AsyncGenerator<string> {
      yield '{"Number":"1"}\r\n\n{"Number": 2,,}\n[1]';
    }
    const docs = await all(readJsonlDocuments(chunks(), 'x.jsonl', { parse: false }));
    expect(docs).toEqual([
      { index: 0, source: { lines: [1] }, raw: '{"Number":"1"}', problems: [] },
      { index: 1, source: { lines: [3] }, raw: '{"Number": 2,,}', problems: [] },
      { index: 2, source: { lines: [4] }, raw: '[1]', problems: [] },
    ]);
  });

  it('treats a file of blank lines as empty', async () => {
    const file = path.join(dir, 'blank.jsonl');
    await writeFile(file, '\n\r\n   \n');
    await edocError(openSource(file, 'invoice', { company: COMPANY }), 'EDOC_READ_EMPTY');
  });

  it('rejects a line longer than maxLineBytes as a file error', async () => {
    const file = path.join(dir, 'long.jsonl');
    await writeFile(file, `{"a":1}\n{"b":"${'x'.repeat(5000)}"}\n`);
    const err = await edocError(
      openSource(file, 'invoice', { company: COMPANY, maxLineBytes: 1000 }),
      'EDOC_READ_JSON',
    );
    expect(err.context).toMatchObject({ line: 2 });
  });

  it('streams many lines with their line numbers', async () => {
    const file = path.join(dir, 'many.jsonl');
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ Number: String(i) }));
    await writeFile(file, lines.join('\r\n') + '\r\n');
    const docs = await all((await openSource(file, 'invoice', { company: COMPANY })).documents);
    expect(docs).toHaveLength(20_000);
    expect(docs[19_999]).toMatchObject({
      index: 19_999,
      source: { lines: [20_000] },
      raw: lines[19_999],
    });
  });
});
