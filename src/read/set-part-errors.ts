/** The errors of a file in an inbox folder whose mapping reads exports in two files (map/parts.ts). */
import path from 'node:path';
import { EdocError } from '../errors.js';
import type { Parts } from '../map/parts.js';

/** A file whose name matches neither part's rule: it is never read as a set, nor alone. */
export function notAPart(file: string, parts: Parts): EdocError {
  return new EdocError(
    'EDOC_READ_SET_NOT_A_PART',
    `${path.basename(file)}: this folder takes exports in two files, and the name is neither part's ` +
      `(header "${parts.header.file}", lines "${parts.lines.file}"); rename it, or drop it in another folder`,
    { file: path.basename(file) },
  );
}
