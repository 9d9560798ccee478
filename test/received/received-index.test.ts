import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { indexFields, receivedNames } from '../../src/received/received-files.js';
import { ReceivedIndex } from '../../src/received/received-index.js';
import { readIndex, tempDir } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function fields(cufe: string, providerName = 'Proveedor SAS') {
  const record = {
    cufe,
    documentNumber: `N${cufe}`,
    documentDate: 'Tue, 03 Nov 2026 00:00:00 GMT',
    providerName,
    value: 10,
  };
  return indexFields(record, receivedNames(record), false, '');
}

describe('received.csv', () => {
  it('appends a document once, and knows the rows written by an earlier process', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const index = await ReceivedIndex.open(dir);
    expect(await index.append(fields('aaa'))).toBe(true);
    expect(await index.append(fields('aaa'))).toBe(false);
    expect(await index.append(fields('-bbb'))).toBe(true);
    const reopened = await ReceivedIndex.open(dir);
    expect(reopened.has('aaa')).toBe(true);
    // Neutralised as '-bbb in the file, still recognised as -bbb.
    expect(reopened.has('-bbb')).toBe(true);
    expect(await reopened.append(fields('-bbb'))).toBe(false);
    expect(readIndex(dir).rows.map((r) => r.cufe)).toEqual(['aaa', "'-bbb"]);
  });

  it('a row torn by a crash is cut off when the index is opened', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const index = await ReceivedIndex.open(dir);
    await index.append(fields('aaa'));
    fs.appendFileSync(path.join(dir, 'received.csv'), '2026-11-03;Nccc;;"Half a na');
    const reopened = await ReceivedIndex.open(dir);
    expect(reopened.has('ccc')).toBe(false);
    await reopened.append(fields('ccc'));
    expect(readIndex(dir).rows.map((r) => r.cufe)).toEqual(['aaa', 'ccc']);
  });

  it('line breaks inside a value are flattened, so every row is one line', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const index = await ReceivedIndex.open(dir);
    await index.append(fields('aaa', 'Proveedor\r\nde dos líneas'));
    const text = fs.readFileSync(path.join(dir, 'received.csv'), 'utf8');
    expect(text.split('\r\n')).toHaveLength(3);
    expect(readIndex(dir).rows[0].providerName).toBe('Proveedor de dos líneas');
  });

  it('a file that is not an index of ours is kept aside, not overwritten', async () => {
    const dir = tempDir();
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'received.csv'), 'something,else\n1,2\n');
    const index = await ReceivedIndex.open(dir);
    await index.append(fields('aaa'));
    const names = fs.readdirSync(dir);
    const backup = names.find((n) => /^received\.csv\.\d+\.bak$/.test(n));
    expect(backup).toBeDefined();
    expect(fs.readFileSync(path.join(dir, backup!), 'utf8')).toBe('something,else\n1,2\n');
    expect(readIndex(dir).rows.map((r) => r.cufe)).toEqual(['aaa']);
  });
});
