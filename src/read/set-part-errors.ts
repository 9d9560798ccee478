/** The errors of a file in an inbox folder whose mapping reads exports in two files (map/parts.ts). */
import path from 'node:path';
import { EdocError } from '../errors.js';
import { partOf, type Parts } from '../map/parts.js';

/**
 * A file read alone where the mapping reads sets: a name that matches neither part's rule, or a part
 * given alone (`edoc-bridge submit` takes one file): it is never read as a set, nor alone.
 */
export function notAPart(file: string, parts: Parts): EdocError {
  const name = path.basename(file);
  const found = partOf(parts, name);
  return new EdocError(
    'EDOC_READ_SET_NOT_A_PART',
    found === undefined
      ? `${name}: this folder takes exports in two files, and the name is neither part's ` +
          `(header "${parts.header.file}", lines "${parts.lines.file}"); rename it, or drop it in another folder`
      : `${name} is the ${found.part} file of an export in two files: it is read only with its partner, ` +
          'both dropped in the inbox folder (edoc-bridge submit takes one file)',
    { file: name },
  );
}
