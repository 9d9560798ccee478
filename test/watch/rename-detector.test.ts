/**
 * The rename detector keeps its staging files by folder (an inbox per company: a new file is matched
 * against its own folder's only). Real files in real folders: a rename in one folder is recognised once,
 * a staging file of another folder never matches, and pruning forgets gone ones in every folder.
 */
import { lstat, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { RenameDetector } from '../../src/watch/rename-detector.js';
import { removeDir, tempDir } from './watch-helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await removeDir(dir);
  dir = undefined;
});

test('a rename is matched in its own folder only, once; pruning forgets gone files of every folder', async () => {
  dir = await tempDir();
  const folders = ['a', 'b', 'c'].map((c) => path.join(dir!, c, 'invoice'));
  for (const folder of folders) await mkdir(folder, { recursive: true });
  const detector = new RenameDetector(5_000);
  for (const folder of folders) {
    await writeFile(path.join(folder, 'carga.jsonl.part'), '{}\n');
    await detector.seen(path.join(folder, 'carga.jsonl.part'));
  }
  expect(detector.size).toBe(3);

  // b's staging file renamed in: b's new file is a rename; a file of the same name in c that was
  // written in place is not (c's staging file still exists)
  const bFile = path.join(folders[1]!, 'carga.jsonl');
  await rename(`${bFile}.part`, bFile);
  detector.gone(`${bFile}.part`);
  expect(await detector.renamedIn(bFile, await lstat(bFile))).toBe(true);
  expect(detector.has(`${bFile}.part`)).toBe(false);
  expect(await detector.renamedIn(bFile, await lstat(bFile))).toBe(false);
  const cFile = path.join(folders[2]!, 'carga.jsonl');
  await writeFile(cFile, '{}\n');
  expect(await detector.renamedIn(cFile, await lstat(cFile))).toBe(false);
  expect(detector.size).toBe(2);

  // a and c's staging files gone long ago: forgotten by one prune
  detector.gone(path.join(folders[0]!, 'carga.jsonl.part'));
  detector.gone(path.join(folders[2]!, 'carga.jsonl.part'));
  detector.prune(Date.now() + 10_000);
  expect(detector.size).toBe(0);
});
