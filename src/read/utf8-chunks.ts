/**
 * Streams a file as UTF-8 text in chunks (BOM dropped), checking that it is the
 * file the caller saw (snapshot) before and after. Bytes that are not UTF-8
 * make the file EDOC_READ_BINARY: JSON is UTF-8 by definition.
 */
import type { Hash } from 'node:crypto';
import { TextDecoder } from 'node:util';
import { EdocError } from '../errors.js';
import { fileChunks, type FileSnapshot } from './file-snapshot.js';

const CHUNK_BYTES = 64 * 1024;

export async function* utf8Chunks(file: string, expected: FileSnapshot, hash?: Hash): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const bytes of fileChunks(file, { chunkBytes: CHUNK_BYTES, expected, ...(hash ? { hash } : {}) })) {
    const text = decode(decoder, file, bytes, true);
    if (text.length > 0) yield text;
  }
  const rest = decode(decoder, file, undefined, false);
  if (rest.length > 0) yield rest;
}

function decode(decoder: TextDecoder, file: string, bytes: Uint8Array | undefined, stream: boolean): string {
  try {
    return decoder.decode(bytes, { stream });
  } catch (err) {
    throw new EdocError('EDOC_READ_BINARY', `${file} is not valid UTF-8 text`, { file }, { cause: err });
  }
}
