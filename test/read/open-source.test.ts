import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadMapping } from '../../src/map/load-mapping.js';
import { hashFile } from '../../src/read/hash.js';
import { openSource } from '../../src/read/open-source.js';
import { all, COMPANY, FIXTURES, edocError, removeDir, tempDir } from './read-helpers.js';

describe('openSource file-level checks', () => {
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
  const open = (file: string, extra: Partial<Parameters<typeof openSource>[2]> = {}) =>
    openSource(file, 'invoice', { company: COMPANY, ...extra });

  it('rejects an empty file', async () => {
    for (const name of ['e.json', 'e.jsonl', 'e.csv']) {
      const err = await edocError(open(await write(name, '')), 'EDOC_READ_EMPTY');
      expect(err.context.file).toBe(path.join(dir, name));
    }
  });

  it('rejects a binary file (NUL bytes in the first 8 KiB)', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"a":'),
      Buffer.from([0, 1, 2, 0xff]),
      Buffer.from('}'),
    ]);
    for (const name of ['b.json', 'b.jsonl', 'b.csv'])
      await edocError(open(await write(name, bytes)), 'EDOC_READ_BINARY');
  });

  it("says a UTF-16 export (Excel's Unicode Text) is UTF-16, not that it is no text", async () => {
    const mapping = await loadMapping(
      path.join(FIXTURES, '..', '..', '..', 'config/mappings/sales.csv.yaml'),
    );
    const text = 'prefijo;numero\r\nSETP;1\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le.toString('utf16le'), 'utf16le').swap16();
    for (const [name, bytes] of [
      ['le.csv', le],
      ['be.csv', be],
    ] as const) {
      const file = await write(name, bytes);
      // the sniff of its own, and the facts the content hash's pass collected (the daemon's path)
      for (const extra of [{}, { text: { utf8: false, nulInHead: true } }]) {
        const err = await edocError(open(file, { mapping, ...extra }), 'EDOC_READ_BINARY');
        expect(err.message).toBe(
          `${file} is UTF-16 text (Excel's "Unicode Text"), which is not read: save the export as "CSV UTF-8" or as CSV`,
        );
      }
    }
  });

  it('rejects an unsupported extension', async () => {
    const err = await edocError(open(await write('invoice.xml', '<x/>')), 'EDOC_READ_UNSUPPORTED');
    expect(err.message).toMatch(/unsupported file type/);
  });

  it('rejects a delimited file when the kind has no mapping', async () => {
    const err = await edocError(
      open(await write('sales.csv', 'a;b\n1;2\n')),
      'EDOC_READ_UNSUPPORTED',
    );
    expect(err.message).toMatch(/no mapping is configured for kind invoice/);
    await edocError(open(await write('sales.TXT', 'a;b\n1;2\n')), 'EDOC_READ_UNSUPPORTED');
  });

  it('reports a file that is gone before it is read as changed', async () => {
    const err = await edocError(open(path.join(dir, 'missing.json')), 'EDOC_READ_CHANGED');
    expect(err.context.reason).toBe('gone');
  });

  it('reports a file that is not a regular file as unsupported', async () => {
    await mkdir(path.join(dir, 'folder.json'));
    await edocError(open(path.join(dir, 'folder.json')), 'EDOC_READ_UNSUPPORTED');
  });

  it('reports a file deleted while its documents are read as changed', async () => {
    const file = await write(
      'gone.jsonl',
      Array.from({ length: 50_000 }, (_, i) => `{"n":${i}}`).join('\n'),
    );
    const source = await open(file);
    const iterator = source.documents[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    await unlink(file);
    await expect(
      (async () => {
        for (;;) if ((await iterator.next()).done) return;
      })(),
    ).rejects.toMatchObject({ code: 'EDOC_READ_CHANGED', context: { reason: 'gone' } });
  });

  it('reports a file appended to while its documents are read as changed', async () => {
    const file = await write(
      'grow.json',
      `[${Array.from({ length: 20_000 }, (_, i) => `{"n":${i}}`).join(',')}]`,
    );
    const source = await open(file);
    const iterator = source.documents[Symbol.asyncIterator]();
    await iterator.next();
    await appendFile(file, '\n');
    await expect(
      (async () => {
        for (;;) if ((await iterator.next()).done) return;
      })(),
    ).rejects.toMatchObject({ code: 'EDOC_READ_CHANGED', context: { reason: 'changed' } });
  });

  it('reads a JSON array whose two-byte characters straddle the 64 and 256 KiB boundaries', async () => {
    // elements {"d":"x…xé"} of 100 bytes (é is C3 A9), 101 with their comma; blanks in front of the
    // array move them: 91 put an é's first byte at 65,535, 52 at 262,143 (the read's chunks end there)
    const element = `{"d":"${'x'.repeat(90)}é"}`;
    expect(Buffer.byteLength(element)).toBe(100);
    for (const [lead, cut] of [
      [91, 65_536],
      [52, 262_144],
    ]) {
      const text = `${' '.repeat(lead)}[${Array.from({ length: 2_700 }, () => element).join(',')}]`;
      expect(Buffer.from(text).subarray(cut - 1, cut + 1)).toEqual(Buffer.from('é'));
      const source = await open(await write(`e${lead}.json`, text));
      const docs = await all(source.documents);
      expect([lead, source.encoding, docs.length]).toEqual([lead, 'utf-8', 2_700]);
      expect(docs.every((d) => (d.request as { d: string }).d.endsWith('xé'))).toBe(true);
    }
  });

  it('reports a file that differs from what the watcher saw as changed', async () => {
    const file = await write('seen.json', '{"a":1}');
    await edocError(open(file, { expect: { size: 3, mtimeMs: 0 } }), 'EDOC_READ_CHANGED');
  });

  it('hashFile gives the sha256 of the content with the size and mtime it belongs to', async () => {
    const file = path.join(FIXTURES, 'array.json');
    const hashed = await hashFile(file);
    expect(hashed.sha256).toBe(
      createHash('sha256')
        .update(await readFile(file))
        .digest('hex'),
    );
    const source = await open(file, { expect: { size: hashed.size, mtimeMs: hashed.mtimeMs } });
    expect(source.count).toBe(3);
    await edocError(hashFile(path.join(dir, 'nope.json')), 'EDOC_READ_CHANGED');
  });
});

describe('openSource delimited files', () => {
  it('hands .csv files of a kind with a mapping to the CSV reader', async () => {
    const root = path.join(FIXTURES, '..', '..', '..');
    const mapping = await loadMapping(path.join(root, 'config', 'mappings', 'sales.csv.yaml'));
    const source = await openSource(path.join(root, 'examples', 'invoices.csv'), 'invoice', {
      company: COMPANY,
      mapping,
    });
    expect(source.format).toBe('csv');
    expect(source.header).toMatch(/prefijo/);
    const first = (await source.documents[Symbol.asyncIterator]().next()).value;
    expect(first).toMatchObject({ index: 0 });
    expect(first.source.rows[0]).toBe(2);
  });
});
