import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AtomicWriter, removeDurably, writeFileAtomic } from '../../src/report/atomic-write.js';
import { tempDir, tempFiles } from './helpers.js';

describe('atomic writes', () => {
  it('replaces the target whole and leaves no temp file', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'a.result.json');
    await writeFileAtomic(target, 'first');
    await writeFileAtomic(target, 'second, longer');
    expect(fs.readFileSync(target, 'utf8')).toBe('second, longer');
    expect(fs.readdirSync(dir)).toEqual(['a.result.json']);
  });

  it('streams large content in chunks and only shows it at commit', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'big.json');
    fs.writeFileSync(target, 'old');
    const w = await AtomicWriter.create(target);
    const line = `${'x'.repeat(999)}\n`;
    for (let i = 0; i < 3000; i++) await w.write(line);
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
    expect(tempFiles(dir)).toHaveLength(1);
    await w.commit();
    expect(fs.statSync(target).size).toBe(3_000_000);
    expect(tempFiles(dir)).toEqual([]);
  });

  it('abort drops the temp file and keeps the old target', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'a.errors.csv');
    fs.writeFileSync(target, 'old');
    const w = await AtomicWriter.create(target);
    await w.write('new');
    await w.abort();
    await w.abort();
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
    expect(tempFiles(dir)).toEqual([]);
  });

  it('reports an unwritable folder as EDOC_REPORT_WRITE', async () => {
    await expect(
      writeFileAtomic(path.join(tempDir(), 'missing', 'a.json'), 'x'),
    ).rejects.toMatchObject({ code: 'EDOC_REPORT_WRITE' });
  });

  it('removeDurably removes a file and accepts one that is absent', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'x'), '1');
    expect(await removeDurably(path.join(dir, 'x'))).toBe(true);
    expect(await removeDurably(path.join(dir, 'x'))).toBe(false);
  });
});
