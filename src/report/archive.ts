import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import { fsyncDir } from './atomic-write.js';
import { sanitizeName } from './names.js';

function candidate(dir: string, base: string, n: number): string {
  if (n === 1) return path.join(dir, base);
  const ext = path.extname(base);
  const stem = ext.length > 0 && ext.length < base.length ? base.slice(0, -ext.length) : base;
  return path.join(dir, `${stem} (${n})${ext}`);
}

/**
 * Is the file at `source` still the content the ledger recorded? 'gone' when nothing is there, 'changed'
 * when other content is (rewritten, grown, or replaced after the file was taken).
 */
export async function originalState(source: string, expected: { size: number; sha256: string }): Promise<'same' | 'gone' | 'changed'> {
  let src: fs.Stats;
  try {
    src = await fsp.lstat(source);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  if (!src.isFile()) return 'changed';
  return src.size === expected.size && (await sha256Of(source)) === expected.sha256 ? 'same' : 'changed';
}

async function sha256Of(file: string): Promise<string> {
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
 * Moves `source` into `archiveDir` under its (sanitised) name, or `name (2).ext`, `name (3).ext`…
 * Never overwrites: a hard link fails if the name exists, then the source is unlinked. Where links
 * are impossible (another file system, EXDEV; or a share without them) it copies exclusively, fsyncs,
 * and unlinks. Returns the archived path, or undefined when the source is already gone (moved before
 * a crash).
 */
export async function archiveOriginal(source: string, archiveDir: string,
  expected?: { size: number; sha256: string }): Promise<string | undefined> {
  let src: fs.Stats;
  try {
    src = await fsp.lstat(source);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // a new file dropped under the same name meanwhile is not ours to move
  if (expected && (src.size !== expected.size || (await sha256Of(source)) !== expected.sha256)) return undefined;
  await fsp.mkdir(archiveDir, { recursive: true });
  const base = sanitizeName(path.basename(source));
  for (let n = 1; n < 10_000; n++) {
    const dest = candidate(archiveDir, base, n);
    try {
      try {
        await fsp.link(source, dest);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') {
          // linked by a run that died before the unlink: that archived copy is this very file
          const there = await fsp.lstat(dest).catch(() => undefined);
          if (!there || there.ino !== src.ino || there.dev !== src.dev) continue;
        } else if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') {
          throw err;
        } else {
          try {
            await copyDurably(source, dest);
          } catch (copyErr) {
            if ((copyErr as NodeJS.ErrnoException).code === 'EEXIST') continue;
            throw copyErr;
          }
        }
      }
      await fsyncDir(archiveDir);
      await fsp.unlink(source);
      await fsyncDir(path.dirname(source));
      return dest;
    } catch (err) {
      throw new EdocError('EDOC_REPORT_ARCHIVE', `Could not archive ${source}: ${(err as Error).message}`,
        { file: source, archiveDir, errno: (err as NodeJS.ErrnoException).code }, { cause: err });
    }
  }
  throw new EdocError('EDOC_REPORT_ARCHIVE', `No free archive name for ${base} in ${archiveDir}.`, { file: source, archiveDir });
}
