import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openSource } from '../../src/read/open-source.js';
import { COMPANY, FIXTURES, all, edocError, removeDir, tempDir } from './read-helpers.js';

const open = (file: string) => openSource(file, 'invoice', { company: COMPANY });

describe('JSON input', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });
  const write = async (name: string, text: string | Buffer): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };

  it('reads one request object as one document with its line range and exact text', async () => {
    const source = await open(path.join(FIXTURES, 'object.json'));
    expect(source).toMatchObject({ format: 'json', encoding: 'utf-8', count: 1 });
    const docs = await all(source.documents);
    expect(docs).toEqual([
      {
        index: 0,
        source: { lines: [1, 4] },
        request: { Prefix: 'SETP', Number: '990000001' },
        problems: [],
        raw: '{\n  "Prefix": "SETP",\n  "Number": "990000001"\n}',
        requestFromRaw: true,
      },
    ]);
    expect(docs[0]?.request).toEqual(JSON.parse(docs[0]?.raw ?? ''));
  });

  it('reads an array element by element; brackets and quotes inside strings do not confuse it', async () => {
    const docs = await all((await open(path.join(FIXTURES, 'array.json'))).documents);
    expect(docs.map((d) => d.source.lines)).toEqual([[2], [3, 6], [7]]);
    expect(docs.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(docs[1].request).toEqual({ Number: '2', Note: 'a ] and } and " inside' });
    expect(docs[1].raw).toBe('{\n    "Number": "2",\n    "Note": "a ] and } and \\" inside"\n  }');
    expect(docs[2].raw).toBe('{"Number": "3"}');
  });

  it('accepts a UTF-8 BOM', async () => {
    const docs = await all((await open(path.join(FIXTURES, 'bom.json'))).documents);
    expect(docs).toHaveLength(1);
    expect(docs[0].request).toEqual({ Number: '1' });
    expect(docs[0].raw).toBe('{"Number":"1"}');
  });

  it('streams a 10,000-element array with the right line ranges and raw texts', async () => {
    const parts: string[] = [];
    for (let i = 0; i < 10_000; i++)
      parts.push(`  {\n    "Number": "${i}",\n    "Text": "ñ ${'x'.repeat(i % 50)}"\n  }`);
    const file = await write('big.json', `[\n${parts.join(',\n')}\n]\n`);
    const source = await open(file);
    expect(source.count).toBe(10_000);
    let n = 0;
    for await (const doc of source.documents) {
      expect(doc.index).toBe(n);
      expect(doc.source.lines).toEqual([2 + n * 4, 5 + n * 4]);
      expect(doc.raw).toBe(parts[n].slice(2));
      expect((doc.request as { Number: string }).Number).toBe(String(n));
      n++;
    }
    expect(n).toBe(10_000);
  });

  it('reports a broken element as a file error with line and column, before any document', async () => {
    const file = await write('broken.json', '[\n  {"a": 1},\n  {"b": 2 "c": 3}\n]\n');
    const err = await edocError(open(file), 'EDOC_READ_JSON');
    expect(err.context).toMatchObject({ file, line: 3, col: 11 });
    expect(err.message).toMatch(/line 3, column 11/);
  });

  it('rejects trailing text after the array', async () => {
    const file = await write('trailing.json', '[{"a":1}]\n]garbage');
    const err = await edocError(open(file), 'EDOC_READ_JSON');
    expect(err.context).toMatchObject({ line: 2, col: 1 });
  });

  it('rejects a top level that is neither an object nor an array', async () => {
    const err = await edocError(open(await write('scalar.json', '  "hello"')), 'EDOC_READ_JSON');
    expect(err.message).toMatch(/object or an array/);
    expect(err.context).toMatchObject({ line: 1, col: 3 });
  });

  it('rejects an unclosed array and a trailing comma', async () => {
    const unclosed = await edocError(
      open(await write('unclosed.json', '[{"a":1},\n{"b":2}')),
      'EDOC_READ_JSON',
    );
    expect(unclosed.message).toMatch(/not closed/);
    const comma = await edocError(open(await write('comma.json', '[{"a":1},]')), 'EDOC_READ_JSON');
    expect(comma.context).toMatchObject({ line: 1, col: 10 });
  });

  it('rejects 100,000 nested brackets without overflowing the stack', async () => {
    const file = await write('deep.json', '['.repeat(100_000) + ']'.repeat(100_000));
    const err = await edocError(open(file), 'EDOC_READ_JSON');
    expect(err.message).toMatch(/deeper than 1000/);
    expect(err.context).toMatchObject({ line: 1, col: 1001 });
  });

  it('turns an element that is not an object into a document with a problem', async () => {
    const docs = await all(
      (await open(await write('mixed.json', '[{"a":1}, 42, "x", {"b":2}]'))).documents,
    );
    expect(docs.map((d) => d.problems.length)).toEqual([0, 1, 1, 0]);
    expect(docs[1]).toMatchObject({ raw: '42', problems: [{ code: 'EDOC_READ_JSON' }] });
    expect(docs[1].request).toBeUndefined();
    expect(docs[3].request).toEqual({ b: 2 });
  });

  it('treats whitespace only and an empty array as empty', async () => {
    await edocError(open(await write('blank.json', '  \n\n ')), 'EDOC_READ_EMPTY');
    await edocError(open(await write('none.json', '[ ]')), 'EDOC_READ_EMPTY');
  });

  it('decodes bytes that are not UTF-8 as Windows-1252, the rule CSV files follow, and says so in its encoding', async () => {
    // [{"a":"ñ"}] with ñ as the single Windows-1252 byte 0xF1 (in UTF-8 it would be C3 B1)
    const file = await write(
      'latin1.json',
      Buffer.from([0x5b, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xf1, 0x22, 0x7d, 0x5d]),
    );
    const opened = await open(file);
    expect(opened.encoding).toBe('windows-1252');
    expect((await all(opened.documents)).map((d) => d.request)).toEqual([{ a: 'ñ' }]);
    // 0x80 is the euro sign in Windows-1252 (in Latin-1 a control character)
    const euro = await open(
      await write(
        'euro.jsonl',
        Buffer.from([0x7b, 0x22, 0x62, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d, 0x0a]),
      ),
    );
    expect((await all(euro.documents)).map((d) => d.request)).toEqual([{ b: '€' }]);
    expect(euro.encoding).toBe('windows-1252');
  });

  it('reads a UTF-8 file as UTF-8', async () => {
    const opened = await open(await write('utf8.json', Buffer.from('[{"a":"ñ"}]', 'utf8')));
    expect(opened.encoding).toBe('utf-8');
    expect((await all(opened.documents)).map((d) => d.request)).toEqual([{ a: 'ñ' }]);
  });
});
