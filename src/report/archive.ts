import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import { fsyncDir } from './atomic-write.js';
import { sanitizeName } from '../policy/outbox-names.js';

/** `dir/base` for n = 1, else `dir/stem (n).ext`. */
export function candidate(dir: string, base: string, n: number): string {
  if (n === 1) return path.join(dir, base);
  const ext = path.extname(base);
  const stem = ext.length > 0 && ext.length < base.length ? base.slice(0, -ext.length) : base;
  return path.join(dir, `${stem} (${n})${ext}`);
}

/**
 * Is the file at `source` still the content the ledger recorded? 'gone' when nothing is there, 'changed'
 * when other content is (rewritten, grown, or replaced after the file was taken).
 */
export async function originalState(
  source: string,
  expected: { size: number; sha256: string },
): Promise<'same' | 'gone' | 'changed'> {
  let src: fs.Stats;
  try {
    src = await fsp.lstat(source);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  if (!src.isFile()) return 'changed';
  return src.size === expected.size && (await sha256Of(source)) === expected.sha256
    ? 'same'
    : 'changed';
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function copyDurably(src: string, dest: string): Promise<void> {
  await fsp.copyFile(src, dest, fs.constants.COPYFILE_EXCL);
  const fh = await fsp.open(dest, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Puts `source`'s content at `dest` without ever overwriting: a hard link, or where links are
 * impossible (another file system, EXDEV; a share without them) an exclusive copy, fsynced. True when
 * `dest` now holds it — also when `dest` is already a link to this very file (linked by a run that
 * died before unlinking the source); false when `dest` is another file.
 */
export async function placeExclusive(
  source: string,
  dest: string,
  src: fs.Stats,
): Promise<boolean> {
  try {
    await fsp.link(source, dest);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      const there = await fsp.lstat(dest).catch(() => undefined);
      return there !== undefined && there.ino === src.ino && there.dev === src.dev;
    }
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP')
      throw err;
  }
  try {
    await copyDurably(source, dest);
    return true;
  } catch (copyErr) {
    if ((copyErr as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw copyErr;
  }
}

/**
 * Moves `source` into `archiveDir` under its (sanitised) name, or `name (2).ext`, `name (3).ext`…
 * Never overwrites (`placeExclusive`), then the source is unlinked. Returns the archived path, or
 * undefined when the source is already gone (moved before a crash).
 */
export async function archiveOriginal(
  source: string,
  archiveDir: string,
  expected?: { size: number; sha256: string },
): Promise<string | undefined> {
  let src: fs.Stats;
  try {
    src = await fsp.lstat(source);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // a new file dropped under the same name meanwhile is not ours to move
  if (expected && (src.size !== expected.size || (await sha256Of(source)) !== expected.sha256))
    return undefined;
  await fsp.mkdir(archiveDir, { recursive: true });
  const base = sanitizeName(path.basename(source));
  for (let n = 1; n < 10_000; n++) {
    const dest = candidate(archiveDir, base, n);
    try {
      if (!(await placeExclusive(source, dest, src))) continue;
      await fsyncDir(archiveDir);
      // The ERP may have dropped a new file under the same name since the lstat (a daily name, renamed
      // in over it): that one is not ours to unlink. Checked last, right before the unlink.
      const still = await fsp.lstat(source).catch(() => undefined);
      if (still !== undefined && still.ino === src.ino && still.dev === src.dev) {
        await fsp.unlink(source);
        await fsyncDir(path.dirname(source));
      }
      return dest;
    } catch (err) {
      throw new EdocError(
        'EDOC_REPORT_ARCHIVE',
        `Could not archive ${source}: ${(err as Error).message}`,
        { file: source, archiveDir, errno: (err as NodeJS.ErrnoException).code },
        { cause: err },
      );
    }
  }
  throw new EdocError('EDOC_REPORT_ARCHIVE', `No free archive name for ${base} in ${archiveDir}.`, {
    file: source,
    archiveDir,
  });
}
