/**
 * An inbox folder made at start (the company's or kind's folder under paths.inbox): one that cannot be
 * made — a file in its place, no right to write its parent — stops the start with a coded line naming
 * the folder (EDOC_CONFIG_NOT_WRITABLE, exit 2) instead of a bare `EEXIST … mkdir`.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import { makeFolder } from '../storage/make-folder.js';

/** Makes `dir` when missing and returns its real path. */
export async function makeInboxFolder(dir: string): Promise<string> {
  try {
    await makeFolder(dir);
    return await realpath(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new EdocError(
      'EDOC_CONFIG_NOT_WRITABLE',
      `paths.inbox: the inbox folder ${dir} cannot be made (${await whyNot(dir, code)}); ` +
        'move what is in its place, or give the service user write access to paths.inbox',
      { path: 'paths.inbox', dir, errno: code },
      { cause: err },
    );
  }
}

/** What is in the way: a file in the place of `dir` or of a folder above it, a broken link, or the errno. */
async function whyNot(dir: string, code: string): Promise<string> {
  if (code === 'ELOOP') return 'a loop of symbolic links is in its place';
  const link = (await lstat(dir).catch(() => undefined))?.isSymbolicLink() === true;
  if (link && (await stat(dir).catch(() => undefined)) === undefined)
    return 'a symbolic link to nothing is in its place';
  if (code !== 'EEXIST' && code !== 'ENOTDIR') return code;
  // the deepest path that exists is what is in the way, when it is not a folder
  for (let at = dir; path.dirname(at) !== at; at = path.dirname(at)) {
    const found = await stat(at).catch(() => undefined);
    if (found === undefined) continue;
    if (found.isDirectory()) break;
    return at === dir ? 'a file is in its place' : `${at} is a file, not a folder`;
  }
  return 'a file is in its place';
}
