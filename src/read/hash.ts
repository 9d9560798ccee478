/**
 * The content hash the ledger uses to recognise the same file dropped again.
 * One streaming pass; the size and mtime returned are the ones the hash belongs
 * to (checked after the pass), so a reader can verify it reads the same bytes.
 * The same pass learns what the reader would otherwise make passes of its own
 * for (text-facts.ts): UTF-8 or not, a NUL in the head, a JSONL file's longest line.
 */
import { createHash } from 'node:crypto';
import { fileChunks, type FileSnapshot } from './file-snapshot.js';
import { formatOf } from './source-document.js';
import { TextFactsCollector, type TextFacts } from './text-facts.js';

export interface FileHash extends FileSnapshot {
  sha256: string;
  /** What the pass saw of the bytes as text (for `openSource`'s `text`). */
  text: TextFacts;
}

const CHUNK_BYTES = 256 * 1024;

export async function hashFile(file: string): Promise<FileHash> {
  const hash = createHash('sha256');
  const text = new TextFactsCollector({ lines: formatOf(file) === 'jsonl' });
  // Iterated by hand: the snapshot is the generator's return value.
  const chunks = fileChunks(file, { chunkBytes: CHUNK_BYTES, verb: 'hashed' });
  for (;;) {
    const next = await chunks.next();
    if (next.done === true)
      return { ...next.value, sha256: hash.digest('hex'), text: text.facts() };
    hash.update(next.value);
    text.update(next.value);
  }
}
