/**
 * `mkdir -p` that fails with the real reason. Node's recursive mkdir reports ENOENT when a folder it must
 * make cannot be made on a read-only file system (EROFS) or without the right to write its parent
 * (EACCES): the first missing folder is made again alone, which fails with the errno that says why.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

export async function makeFolder(dir: string, mode?: number): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    let missing = path.resolve(dir);
    while (path.dirname(missing) !== missing) {
      const parent = path.dirname(missing);
      if ((await stat(parent).catch(() => undefined)) !== undefined) break;
      missing = parent;
    }
    await mkdir(missing, { mode }); // throws the real errno (EEXIST for a symbolic link to nothing)
    await mkdir(dir, { recursive: true, mode });
  }
}
