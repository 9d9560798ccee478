/**
 * The done-marker convention's two namings, and the repair of names that are
 * not UTF-8, on real folders.
 */
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { DoneMarkers } from '../../src/watch/done-markers.js';
import { escapedName, NameRepair } from '../../src/watch/non-utf8-names.js';
import { recordingLogger, removeDir, tempDir } from './watch-helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await removeDir(dir);
  dir = undefined;
});

describe('DoneMarkers', () => {
  test('NAME.ext.done by default; NAME.done with replaceExtension marks every data file of that stem', async () => {
    dir = await tempDir();
    for (const n of ['ventas.csv', 'ventas.json', 'ventas.csv.done', 'ventas.ok', '.oculto.done']) await writeFile(path.join(dir, n), '');
    const full = new DoneMarkers({ suffixes: ['.done', '.OK'], replaceExtension: false });
    expect(full.isMarker('ventas.csv.done')).toBe(true);
    expect(full.isMarker('ventas.Ok')).toBe(true);
    expect(full.isMarker('.done')).toBe(false);
    expect(await full.markerOf(path.join(dir, 'ventas.csv'))).toBe(path.join(dir, 'ventas.csv.done'));
    expect(await full.markerOf(path.join(dir, 'ventas.json'))).toBeUndefined();
    expect(await full.dataFilesOf(path.join(dir, 'ventas.csv.done'))).toEqual([path.join(dir, 'ventas.csv')]);
    expect(await full.dataFilesOf(path.join(dir, 'ventas.ok'))).toEqual([]);

    const stem = new DoneMarkers({ suffixes: ['.ok'], replaceExtension: true });
    expect(await stem.markerOf(path.join(dir, 'ventas.json'))).toBe(path.join(dir, 'ventas.ok'));
    expect((await stem.dataFilesOf(path.join(dir, 'ventas.ok'))).sort()).toEqual(
      [path.join(dir, 'ventas.csv'), path.join(dir, 'ventas.json')]);
    expect(new DoneMarkers().enabled).toBe(false);
    expect(new DoneMarkers().isMarker('ventas.csv.done')).toBe(false);
  });
});

describe('NameRepair', () => {
  test('renames a Windows-1252 name to its decoding once, and warns once about one it cannot rename', async () => {
    dir = await tempDir();
    const d = dir;
    const latin = (name: string) => Buffer.concat([Buffer.from(`${d}/`), Buffer.from(name, 'latin1')]);
    await writeFile(latin('facturaci\xf3n.json'), '[]');
    await writeFile(latin('a\xf1o.json'), '[]');
    await writeFile(path.join(d, 'año.json'), 'already there');
    await writeFile(path.join(d, 'bien.json'), '[]');
    const logger = recordingLogger();
    const repair = new NameRepair(logger, () => ({ kind: 'invoice' }));
    await repair.repair(d);
    await repair.repair(d);
    expect(existsSync(path.join(d, 'facturación.json'))).toBe(true);
    expect(repair.takeOriginal(path.join(d, 'facturación.json'))).toBe(Buffer.from('facturaci\xf3n.json', 'latin1').toString('hex'));
    expect(readdirSync(d).sort()).toContain('bien.json');
    const lines = logger.lines.map((l) => ({ code: l.obj.code, file: l.obj.file, originalName: l.obj.originalName }));
    // two passes, one line each: the renamed file, and the one left in place (its decoded name is taken)
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(expect.arrayContaining([
      { code: 'EDOC_READ_NAME_NOT_UTF8', file: path.join(d, 'a\\xf1o.json'), originalName: 'a\\xf1o.json' },
      { code: 'EDOC_READ_NAME_NOT_UTF8', file: path.join(d, 'facturación.json'), originalName: 'facturaci\\xf3n.json' },
    ]));
    expect(escapedName(Buffer.from('x\\y\x01', 'latin1'))).toBe('x\\x5cy\\x01');
  });
});
