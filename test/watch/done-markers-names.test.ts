/**
 * The done-marker convention's two namings, and the repair of names that are
 * not UTF-8, on real folders.
 */
import { existsSync, readdirSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { DoneMarkers } from '../../src/watch/done-markers.js';
import { InboxWatcher } from '../../src/watch/inbox-watcher.js';
import { escapedName, NameRepair } from '../../src/watch/non-utf8-names.js';
import { collect, recordingLogger, removeDir, tempDir, waitForLine } from './watch-helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await removeDir(dir);
  dir = undefined;
});

describe('DoneMarkers', () => {
  test('NAME.ext.done by default; NAME.done with replaceExtension marks every data file of that stem', async () => {
    dir = await tempDir();
    for (const n of ['ventas.csv', 'ventas.json', 'ventas.csv.done', 'ventas.ok', '.oculto.done'])
      await writeFile(path.join(dir, n), '');
    const full = new DoneMarkers({ suffixes: ['.done', '.OK'], replaceExtension: false });
    expect(full.isMarker('ventas.csv.done')).toBe(true);
    expect(full.isMarker('ventas.Ok')).toBe(true);
    expect(full.isMarker('.done')).toBe(false);
    expect(await full.markerOf(path.join(dir, 'ventas.csv'))).toBe(
      path.join(dir, 'ventas.csv.done'),
    );
    expect(await full.markerOf(path.join(dir, 'ventas.json'))).toBeUndefined();
    expect(await full.dataFilesOf(path.join(dir, 'ventas.csv.done'))).toEqual([
      path.join(dir, 'ventas.csv'),
    ]);
    expect(await full.dataFilesOf(path.join(dir, 'ventas.ok'))).toEqual([]);

    const stem = new DoneMarkers({ suffixes: ['.ok'], replaceExtension: true });
    expect(await stem.markerOf(path.join(dir, 'ventas.json'))).toBe(path.join(dir, 'ventas.ok'));
    expect((await stem.dataFilesOf(path.join(dir, 'ventas.ok'))).sort()).toEqual([
      path.join(dir, 'ventas.csv'),
      path.join(dir, 'ventas.json'),
    ]);
    expect(new DoneMarkers().enabled).toBe(false);
    expect(new DoneMarkers().isMarker('ventas.csv.done')).toBe(false);
  });
});

describe('NameRepair', () => {
  test('renames a Windows-1252 name to its decoding once, and warns once about one it cannot rename', async () => {
    dir = await tempDir();
    const d = dir;
    const latin = (name: string) =>
      Buffer.concat([Buffer.from(`${d}/`), Buffer.from(name, 'latin1')]);
    await writeFile(latin('facturaci\xf3n.json'), '[]');
    await writeFile(latin('a\xf1o.json'), '[]');
    await writeFile(path.join(d, 'año.json'), 'already there');
    await writeFile(path.join(d, 'bien.json'), '[]');
    const logger = recordingLogger();
    const repair = new NameRepair(logger, () => ({ kind: 'invoice' }));
    await repair.repair(d);
    await repair.repair(d);
    expect(existsSync(path.join(d, 'facturación.json'))).toBe(true);
    expect(repair.takeOriginal(path.join(d, 'facturación.json'))).toBe(
      Buffer.from('facturaci\xf3n.json', 'latin1').toString('hex'),
    );
    expect(readdirSync(d).sort()).toContain('bien.json');
    const lines = logger.lines.map((l) => ({
      code: l.obj.code,
      file: l.obj.file,
      originalName: l.obj.originalName,
    }));
    // two passes, one line each: the renamed file, and the one left in place (its decoded name is taken)
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(
      expect.arrayContaining([
        {
          code: 'EDOC_READ_NAME_NOT_UTF8',
          file: path.join(d, 'a\\xf1o.json'),
          originalName: 'a\\xf1o.json',
        },
        {
          code: 'EDOC_READ_NAME_NOT_UTF8',
          file: path.join(d, 'facturación.json'),
          originalName: 'facturaci\\xf3n.json',
        },
      ]),
    );
    expect(escapedName(Buffer.from('x\\y\x01', 'latin1'))).toBe('x\\x5cy\\x01');
  });
});

for (const usePolling of [false, true]) {
  describe(`the watcher with done markers and Windows-1252 names (${usePolling ? 'polling' : 'fs events'})`, () => {
    let watcher: InboxWatcher | undefined;
    afterEach(async () => {
      await watcher?.close();
      watcher = undefined;
    });

    test('a file renamed in from .part still waits for its marker; a Latin-1 name is handed out under its decoding with its original bytes', async () => {
      dir = await tempDir();
      const inbox = path.join(dir, 'inbox');
      const logger = recordingLogger();
      watcher = new InboxWatcher({
        folders: [{ dir: inbox, kind: 'invoice', company: 'main' }],
        stableMs: 100,
        usePolling,
        doneMarker: { suffixes: ['.ok'], replaceExtension: true },
        logger,
      });
      await watcher.start();
      const ready = collect(watcher.files());
      await writeFile(path.join(inbox, 'lote.json.part'), '[]');
      await rename(path.join(inbox, 'lote.json.part'), path.join(inbox, 'lote.json'));
      const raw = Buffer.from('a\xf1o.json', 'latin1');
      await writeFile(Buffer.concat([Buffer.from(`${inbox}/`), raw]), '[]');
      await waitForLine(
        logger,
        'an inbox file name is not UTF-8 (Windows-1252 / Latin-1 bytes a\\xf1o.json): renamed to año.json and taken as that',
      );
      // neither has a marker yet: nothing is handed out
      expect(ready.got).toHaveLength(0);
      await writeFile(path.join(inbox, 'lote.ok'), '');
      await ready.waitFor(1);
      expect(ready.got[0].file).toMatchObject({
        path: path.join(inbox, 'lote.json'),
        via: 'marker',
        marker: path.join(inbox, 'lote.ok'),
      });
      await writeFile(path.join(inbox, 'año.ok'), '');
      await ready.waitFor(2);
      expect(ready.got[1].file).toMatchObject({
        path: path.join(inbox, 'año.json'),
        via: 'marker',
        originalName: raw.toString('hex'),
      });
      expect(ready.got).toHaveLength(2);
    });
  });
}
