/**
 * `.jsonl` input: one request object per line; blank lines are skipped and
 * CRLF is accepted. A line that is not valid JSON, or not an object, becomes a
 * document with an EDOC_READ_JSON problem (reported `invalid` with its line)
 * while the other lines go on: one bad line in an export of thousands should
 * not hold back the rest, and the retry file gives the operator that line back.
 * Only a line too long to hold in memory is a file-level error.
 */
import { EdocError } from '../errors.js';
import type { SourceDocument } from './source-document.js';

export interface JsonlReadOptions {
  /** Longest line accepted, in characters. @defaultValue 16 Mi */
  maxLineChars?: number;
  /**
   * Parse each line (the default). false: the documents carry their text only, no request and no problems;
   * for a pass that counts the documents and meets every file-level error, which no line's content causes.
   */
  parse?: boolean;
}

export async function* readJsonlDocuments(
  chunks: AsyncIterable<string>,
  file: string,
  options: JsonlReadOptions = {},
): AsyncGenerator<SourceDocument> {
  const maxLineChars = options.maxLineChars ?? 16 * 1024 * 1024;
  const parse = options.parse ?? true;
  let pending = '';
  let lineNumber = 0;
  let index = 0;
  for await (const chunk of chunks) {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
      const line = pending + chunk.slice(start, nl);
      pending = '';
      start = nl + 1;
      lineNumber++;
      checkLength(line.length, maxLineChars, file, lineNumber);
      const doc = toDocument(line, lineNumber, index, parse);
      if (doc !== undefined) {
        index++;
        yield doc;
      }
    }
    pending += chunk.slice(start);
    checkLength(pending.length, maxLineChars, file, lineNumber + 1);
  }
  if (pending.length > 0) {
    const doc = toDocument(pending, ++lineNumber, index, parse);
    if (doc !== undefined) {
      index++;
      yield doc;
    }
  }
  if (index === 0)
    throw new EdocError('EDOC_READ_EMPTY', `${file} holds only blank lines`, { file });
}

function checkLength(length: number, max: number, file: string, line: number): void {
  if (length > max) {
    throw new EdocError(
      'EDOC_READ_JSON',
      `line ${line} is longer than ${max} characters (read.maxRecordBytes)`,
      { file, line },
    );
  }
}

function toDocument(
  rawLine: string,
  line: number,
  index: number,
  parse: boolean,
): SourceDocument | undefined {
  const raw = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
  if (raw.trim() === '') return undefined;
  const base = { index, source: { lines: [line] }, raw };
  if (!parse) return { ...base, problems: [] };
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch (err) {
    // V8 quotes the line around the fault (`Unexpected token 's', "sk_live_ab"... is not valid JSON`): not repeated
    const reason =
      err instanceof Error
        ? err.message
            .replace(/\s*in JSON at position \d+.*$/s, '')
            .replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
        : String(err);
    return {
      ...base,
      problems: [
        { code: 'EDOC_READ_JSON', path: '', message: `line ${line} is not valid JSON: ${reason}` },
      ],
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ...base,
      problems: [
        { code: 'EDOC_READ_JSON', path: '', message: `line ${line} is not a JSON object` },
      ],
    };
  }
  return { ...base, request: value, requestFromRaw: true, problems: [] };
}
