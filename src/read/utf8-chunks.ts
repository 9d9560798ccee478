/**
 * Streams a file as text in chunks (BOM dropped), checking that it is the file the caller saw
 * (snapshot) before and after. UTF-8: bytes that are not UTF-8 make the file EDOC_READ_BINARY.
 * Windows-1252 (a JSON/JSONL file that is not UTF-8, decoded by the rule CSV files follow:
 * open-source.ts): every byte is one character, so chunks decode on their own.
 */
import type { Hash } from 'node:crypto';
import { TextDecoder } from 'node:util';
import iconv from 'iconv-lite';
import { EdocError } from '../errors.js';
import { fileChunks, type FileSnapshot } from './file-snapshot.js';

/** As the content hash's pass reads (hash.ts): a file of up to 256 KiB is one read. */
const CHUNK_BYTES = 256 * 1024;

export async function* utf8Chunks(
  file: string,
  expected: FileSnapshot,
  hash?: Hash,
): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const bytes of fileChunks(file, {
    chunkBytes: CHUNK_BYTES,
    expected,
    ...(hash ? { hash } : {}),
  })) {
    const text = decode(decoder, file, bytes, true);
    if (text.length > 0) yield text;
  }
  const rest = decode(decoder, file, undefined, false);
  if (rest.length > 0) yield rest;
}

export async function* windows1252Chunks(
  file: string,
  expected: FileSnapshot,
  hash?: Hash,
): AsyncGenerator<string> {
  for await (const bytes of fileChunks(file, {
    chunkBytes: CHUNK_BYTES,
    expected,
    ...(hash ? { hash } : {}),
  })) {
    const text = iconv.decode(bytes, 'windows-1252');
    if (text.length > 0) yield text;
  }
}

function decode(
  decoder: TextDecoder,
  file: string,
  bytes: Uint8Array | undefined,
  stream: boolean,
): string {
  try {
    return decoder.decode(bytes, { stream });
  } catch (err) {
    throw new EdocError(
      'EDOC_READ_BINARY',
      `${file} is not valid UTF-8 text`,
      { file },
      { cause: err },
    );
  }
}
