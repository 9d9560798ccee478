import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { archiveOriginal } from '../../src/report/archive.js';
import { tempDir } from './helpers.js';

describe('archive of originals', () => {
  it('moves the original and resolves name collisions as "name (2).ext", never overwriting', async () => {
    const root = tempDir();
    const inbox = path.join(root, 'inbox');
    const archive = path.join(root, 'outbox', 'invoice', 'archive');
    fs.mkdirSync(inbox);
    const drop = (content: string) => {
      fs.writeFileSync(path.join(inbox, 'ventas.json'), content);
      return path.join(inbox, 'ventas.json');
    };
    expect(await archiveOriginal(drop('one'), archive)).toBe(path.join(archive, 'ventas.json'));
    expect(await archiveOriginal(drop('two'), archive)).toBe(path.join(archive, 'ventas (2).json'));
    expect(await archiveOriginal(drop('three'), archive)).toBe(
      path.join(archive, 'ventas (3).json'),
    );
    expect(fs.readFileSync(path.join(archive, 'ventas.json'), 'utf8')).toBe('one');
    expect(fs.readFileSync(path.join(archive, 'ventas (2).json'), 'utf8')).toBe('two');
    expect(fs.readFileSync(path.join(archive, 'ventas (3).json'), 'utf8')).toBe('three');
    expect(fs.readdirSync(inbox)).toEqual([]);
  });

  it('returns undefined when the original is already gone (moved before a crash)', async () => {
    const root = tempDir();
    expect(
      await archiveOriginal(path.join(root, 'nope.json'), path.join(root, 'archive')),
    ).toBeUndefined();
  });

  it('finishes a move a crash interrupted after the link, without a second copy', async () => {
    const root = tempDir();
    const archive = path.join(root, 'archive');
    fs.mkdirSync(archive);
    const src = path.join(root, 'a.csv');
    fs.writeFileSync(src, 'x');
    fs.linkSync(src, path.join(archive, 'a.csv'));
    expect(await archiveOriginal(src, archive)).toBe(path.join(archive, 'a.csv'));
    expect(fs.readdirSync(archive)).toEqual(['a.csv']);
    expect(fs.existsSync(src)).toBe(false);
  });
});
