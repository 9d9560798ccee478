/**
 * Streams a file as UTF-8 text in chunks (BOM dropped), checking that it is the
 * file the caller saw (snapshot) before and after. Bytes that are not UTF-8
 * make the file EDOC_READ_BINARY: JSON is UTF-8 by definition.
 */
import { open } from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { EdocError } from '../errors.js';
import { assertUnchanged, changedError, isGone, sameSnapshot, snapshotOf, type FileSnapshot } from './file-snapshot.js';

const CHUNK_BYTES = 64 * 1024;

export async function* utf8Chunks(file: string, expected: FileSnapshot): AsyncGenerator<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if (isGone(err)) throw changedError(file, 'disappeared before it was read', err);
    throw err;
  }
  try {
    if (!sameSnapshot(snapshotOf(await handle.stat()), expected)) throw changedError(file, 'changed before it was read');
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let bytesRead = 0;
    for (;;) {
      const { bytesRead: n } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      bytesRead += n;
      const text = decode(decoder, file, buffer.subarray(0, n), true);
      if (text.length > 0) yield text;
    }
    const rest = decode(decoder, file, undefined, false);
    if (rest.length > 0) yield rest;
    await assertUnchanged(file, expected, bytesRead);
  } finally {
    await handle.close();
  }
}

function decode(decoder: TextDecoder, file: string, bytes: Uint8Array | undefined, stream: boolean): string {
  try {
    return decoder.decode(bytes, { stream });
  } catch (err) {
    throw new EdocError('EDOC_READ_BINARY', `${file} is not valid UTF-8 text`, { file }, { cause: err });
  }
}
