import { describe, expect, it } from 'vitest';
import { readJsonDocuments } from '../../src/read/json-source.js';
import { all } from './read-helpers.js';

async function* inPieces(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

describe('JSON splitter across chunk boundaries', () => {
  const text =
    '[\r\n {"a":"x\\"]}\\\\","b":[1,{"c":null}]},\n\t-12.5e3 , true,"s\\\\\\"",\n{"end":"ñ"}\n]\n';

  it('gives the same documents whatever the chunk size', async () => {
    const expected = await all(readJsonDocuments(inPieces(text, text.length), 'f.json'));
    expect(expected.map((d) => d.raw)).toEqual([
      '{"a":"x\\"]}\\\\","b":[1,{"c":null}]}',
      '-12.5e3',
      'true',
      '"s\\\\\\""',
      '{"end":"ñ"}',
    ]);
    expect(expected.map((d) => d.source.lines)).toEqual([[2], [3], [3], [3], [4]]);
    expect(expected[0].request).toEqual({ a: 'x"]}\\', b: [1, { c: null }] });
    for (const size of [1, 2, 3, 7]) {
      expect(await all(readJsonDocuments(inPieces(text, size), 'f.json'))).toEqual(expected);
    }
  });
});
