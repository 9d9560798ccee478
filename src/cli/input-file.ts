import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { isEdocError } from '../errors.js';
import { usageError } from './command.js';

/**
 * The FILE of `submit` and `validate`: missing, a folder, not a regular file (a FIFO) or unreadable is a usage error (exit 2) with the
 * same words in both, found before anything is opened.
 */
export async function checkReadable(file: string): Promise<void> {
  try {
    const stats = await stat(file);
    if (stats.isDirectory()) throw usageError(`${file} is a folder, not a file`);
    // a FIFO's open waits for a writer, and `submit` would then hang past SIGTERM holding the lock
    if (!stats.isFile())
      throw usageError(`${file} is not a regular file (a pipe, socket or device): give a file`);
    await access(file, constants.R_OK);
  } catch (err) {
    if (isEdocError(err)) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(
      code === 'ENOENT'
        ? `${file}: no such file`
        : `${file}: cannot be read (${code ?? String(err)})`,
    );
  }
}
