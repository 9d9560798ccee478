/**
 * An inbox folder made at start (the company's or kind's folder under paths.inbox): one that cannot be
 * made — a file in its place, no right to write its parent — stops the start with a coded line naming
 * the folder (EDOC_CONFIG_NOT_WRITABLE, exit 2) instead of a bare `EEXIST … mkdir`.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { EdocError } from '../errors.js';

/** Makes `dir` when missing and returns its real path. */
export async function makeInboxFolder(dir: string): Promise<string> {
  try {
    await mkdir(dir, { recursive: true });
    return await realpath(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in its place' : code;
    throw new EdocError(
      'EDOC_CONFIG_NOT_WRITABLE',
      `paths.inbox: the inbox folder ${dir} cannot be made (${why}); ` +
        'move what is in its place, or give the service user write access to paths.inbox',
      { path: 'paths.inbox', dir, errno: code },
      { cause: err },
    );
  }
}
