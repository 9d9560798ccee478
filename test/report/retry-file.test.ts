import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { RetryFileWriter } from '../../src/report/retry-file.js';
import { docRow, tempDir } from './helpers.js';

describe('NAME.retry.<ext>: the originals that did not succeed, in the original format', () => {
  it('.json: an array of the original objects of rejected, invalid and failed documents only', async () => {
    const target = path.join(tempDir(), 'a.retry.json');
    const w = new RetryFileWriter(target, { format: 'json', encoding: 'utf8', header: null });
    const raws = [
      '{ "Number": 1, "Note": "año" }',
      '{"Number":2}',
      '{"Number":3}',
      '{"Number":4}',
      '{"Number":5}',
    ];
    const states = ['rejected', 'accepted', 'invalid', 'in-doubt', 'failed'] as const;
    for (let i = 0; i < raws.length; i++)
      await w.add(docRow({ index: i, state: states[i], raw: raws[i] }));
    expect(await w.commit()).toBe(true);
    expect(JSON.parse(fs.readFileSync(target, 'utf8'))).toEqual([
      { Number: 1, Note: 'año' },
      { Number: 3 },
      { Number: 5 },
    ]);
    expect(fs.readFileSync(target, 'utf8')).toContain('{ "Number": 1, "Note": "año" }');
  });

  it('.jsonl: the original lines', async () => {
    const target = path.join(tempDir(), 'a.retry.jsonl');
    const w = new RetryFileWriter(target, { format: 'jsonl', encoding: 'utf8', header: null });
    await w.add(docRow({ state: 'failed', raw: '{"a":1}\n' }));
    await w.add(docRow({ state: 'accepted', raw: '{"a":2}' }));
    await w.add(docRow({ state: 'rejected', raw: '{"a":3}' }));
    await w.commit();
    expect(fs.readFileSync(target, 'utf8')).toBe('{"a":1}\n{"a":3}\n');
  });

  it('.csv in Windows-1252: header and failed rows round-trip byte for byte', async () => {
    const header = 'Prefijo;Número;Cliente;Descripción;Valor';
    const rows = [
      'SETP;1;Peña Ltda;Café ñandú;1.000,50',
      'SETP;1;Peña Ltda;Azúcar €;2,00',
      'SETP;2;José Pérez;Té;3,00',
      'SETP;3;“Comillas”;Œuvre;4,00',
    ];
    const original = iconv.encode(`${header}\r\n${rows.join('\r\n')}\r\n`, 'windows-1252');
    // what the reader stores: decoded text of each document's rows, the header, the encoding
    const text = iconv.decode(original, 'windows-1252');
    const lines = text.split('\r\n');
    const target = path.join(tempDir(), 'ventas.retry.csv');
    const w = new RetryFileWriter(target, {
      format: 'csv',
      encoding: 'windows-1252',
      header: lines[0],
    });
    await w.add(
      docRow({
        index: 0,
        state: 'invalid',
        source: { rows: [2, 3] },
        raw: `${lines[1]}\r\n${lines[2]}`,
      }),
    );
    await w.add(docRow({ index: 1, state: 'accepted', raw: lines[3] }));
    await w.add(docRow({ index: 2, state: 'rejected', raw: lines[4] }));
    await w.commit();
    const written = fs.readFileSync(target);
    // the original bytes of the header and of rows 2, 3 and 5, nothing re-encoded differently
    const originalLines = original.toString('latin1').split('\r\n');
    const expected = Buffer.from(
      `${[originalLines[0], originalLines[1], originalLines[2], originalLines[4]].join('\r\n')}\r\n`,
      'latin1',
    );
    expect(written.equals(expected)).toBe(true);
    expect(written.includes(0x80)).toBe(true); // the euro sign stayed one cp1252 byte
  });

  it('.txt in UTF-8 with BOM and LF rows keeps the BOM and the line ends', async () => {
    const target = path.join(tempDir(), 'x.retry.txt');
    const w = new RetryFileWriter(target, {
      format: 'csv',
      encoding: 'utf-8-bom',
      header: 'a\tb\n',
    });
    await w.add(docRow({ state: 'failed', raw: 'ñ\t1' }));
    await w.commit();
    expect(fs.readFileSync(target).equals(Buffer.from('\uFEFFa\tb\nñ\t1\n', 'utf8'))).toBe(true);
  });

  it('.csv in UTF-8 without a BOM (recorded as utf-8) writes none', async () => {
    const target = path.join(tempDir(), 'x.retry.csv');
    const w = new RetryFileWriter(target, { format: 'csv', encoding: 'utf-8', header: 'a;b\r\n' });
    await w.add(docRow({ state: 'invalid', raw: 'ñ;"x;\r\ny"\r\n' }));
    await w.commit();
    expect(fs.readFileSync(target).equals(Buffer.from('a;b\r\nñ;"x;\r\ny"\r\n', 'utf8'))).toBe(
      true,
    );
  });

  it('.csv recorded as utf-8-bom (what the reader records for a BOM input) writes the BOM once, before the header', async () => {
    const target = path.join(tempDir(), 'x.retry.csv');
    const w = new RetryFileWriter(target, {
      format: 'csv',
      encoding: 'utf-8-bom',
      header: 'a;b\r\n',
    });
    await w.add(docRow({ index: 0, state: 'invalid', raw: 'ñ;1\r\n' }));
    await w.add(docRow({ index: 1, state: 'rejected', raw: 'é;2\r\n' }));
    await w.commit();
    expect(fs.readFileSync(target).equals(Buffer.from('\uFEFFa;b\r\nñ;1\r\né;2\r\n', 'utf8'))).toBe(
      true,
    );
  });

  it('is absent (a stale one removed) when every document succeeded', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'a.retry.json');
    fs.writeFileSync(target, '[]');
    const w = new RetryFileWriter(target, { format: 'json', encoding: 'utf8', header: null });
    await w.add(docRow({ state: 'accepted', raw: '{}' }));
    expect(await w.commit()).toBe(false);
    expect(fs.existsSync(target)).toBe(false);
  });
});

describe('documents of a file that changed or went away while read', () => {
  it('are left out: a retry file of part of the export would send part of it (EDOC_READ_CHANGED)', async () => {
    const target = path.join(tempDir(), 'pausa.retry.jsonl');
    const w = new RetryFileWriter(target, { format: 'jsonl', encoding: 'utf8', header: null });
    const changed = [{ code: 'EDOC_READ_CHANGED', message: 'Not sent: the file was written on' }];
    await w.add(docRow({ index: 0, state: 'invalid', raw: '{"a":1}', errors: changed }));
    await w.add(docRow({ index: 1, state: 'invalid', raw: '{"a":2}' }));
    await w.commit();
    expect(fs.readFileSync(target, 'utf8')).toBe('{"a":2}\n');
  });
});
